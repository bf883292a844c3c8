#include "comm/polite_wait.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "comm/error.hpp"

namespace dlk::comm {
namespace {

constexpr auto kSpin = std::chrono::microseconds(50);
constexpr long kMinSleepNs = 10'000, kMaxSleepNs = 100'000;

// Calls test() until it says done: spinning first, then sleeping.
template <class Test>
void poll(Test &&test) {
  const auto start = std::chrono::steady_clock::now();
  long sleep_ns = kMinSleepNs;
  while (!test()) {
    if (std::chrono::steady_clock::now() - start < kSpin) continue;
    const timespec pause{0, sleep_ns};
    nanosleep(&pause, nullptr);
    sleep_ns = std::min(2 * sleep_ns, kMaxSleepNs);
  }
}

}  // namespace

void polite_wait(const char *call, MPI_Request &request, MPI_Status *status) {
  poll([&] {
    int done = 0;
    check_mpi(call, "MPI_Test", MPI_Test(&request, &done, status));
    return done != 0;
  });
}

void polite_wait_all(const char *call, std::vector<MPI_Request> &requests) {
  poll([&] {
    int done = 0;
    check_mpi(call, "MPI_Testall",
              MPI_Testall(static_cast<int>(requests.size()), requests.data(), &done,
                          MPI_STATUSES_IGNORE));
    return done != 0;
  });
}

}  // namespace dlk::comm
