#include "backends/cpu_avx512/scratch.hpp"

#include <cstdlib>

#include "core/error.hpp"

namespace dlk::cpu {

void Scratch::Free::operator()(void *p) const { std::free(p); }

void *Scratch::get(size_t bytes, const char *call, const std::string &why) {
  if (bytes > kScratchBound)
    throw core::Error(DLK_STATUS_UNSUPPORTED,
                      std::string(call) + ": " + why + " needs " + std::to_string(bytes) +
                          " bytes of scratch, more than the context's bound of " +
                          std::to_string(kScratchBound) + " bytes");
  if (bytes <= size_ && buffer_) return buffer_.get();
  const size_t rounded = ScratchCarver::aligned(bytes == 0 ? 1 : bytes);
  buffer_.reset();  // free first, so the old and new buffers never coexist
  size_ = 0;
  void *p = std::aligned_alloc(64, rounded);
  if (!p)
    throw core::Error(DLK_STATUS_OUT_OF_MEMORY,
                      std::string(call) + ": cannot allocate " + std::to_string(rounded) +
                          " bytes of scratch");
  buffer_.reset(p);
  size_ = rounded;
  return p;
}

}  // namespace dlk::cpu
