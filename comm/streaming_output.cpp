#include "comm/streaming_output.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dlk::comm {

void copy_streaming(float *to, const float *from, uint64_t count) {
#if defined(__SSE2__)
  uint64_t i = 0;
  // Regular stores up to the first 16-byte boundary of `to` (4-byte aligned).
  for (; i < count && reinterpret_cast<uintptr_t>(to + i) % 16 != 0; ++i) to[i] = from[i];
  for (; i + 4 <= count; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
  for (; i < count; ++i) to[i] = from[i];
  _mm_sfence();
#else
  std::memcpy(to, from, 4 * count);
#endif
}

}  // namespace dlk::comm
