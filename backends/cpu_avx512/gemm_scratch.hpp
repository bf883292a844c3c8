// The packed blocks and workspaces of a GEMM call live in a buffer of the
// calling thread that only ever grows: a fresh allocation per call would cost a
// page fault per 4 KiB and a memset, several per cent of a mid-sized GEMM.
#pragma once

#include <cstddef>

namespace dlk::cpu {

// At least `bytes` bytes, 64-byte aligned, uninitialised, owned by the calling
// thread and valid until its next call of gemm_scratch (the threads of a GEMM
// share it through the pointer the caller hands them). Throws std::bad_alloc.
void *gemm_scratch(size_t bytes);

}  // namespace dlk::cpu
