// How many threads this process has started so far (any library, any way).
#pragma once

namespace dlk_test {
long threads_created();
}
