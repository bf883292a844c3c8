#include "backends/cpu_avx512/gemm_scratch.hpp"

#include <cstdlib>
#include <memory>
#include <new>

namespace dlk::cpu {
namespace {

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};

}  // namespace

void *gemm_scratch(size_t bytes) {
  thread_local std::unique_ptr<void, FreeDeleter> buffer;
  thread_local size_t capacity = 0;
  if (bytes > capacity) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    buffer.reset();  // free first: the old contents are not needed
    buffer.reset(std::aligned_alloc(64, rounded));
    capacity = buffer ? rounded : 0;
    if (!buffer) throw std::bad_alloc();
  }
  return buffer.get();
}

}  // namespace dlk::cpu
