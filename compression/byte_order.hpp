// Little-endian loads and stores at any address. Messages arrive at arbitrary
// offsets of network buffers, so the payload is never accessed through a typed
// pointer; memcpy compiles to one unaligned move. Internal linkage for the reason
// given in kernels/numerics.hpp (translation units with different -m flags).
#pragma once

#include <cstdint>
#include <cstring>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "libdlk_compress reads and writes its little-endian wire format in place: little-endian hosts only"
#endif

// The CUDA backend's codec kernels (backends/cuda/codec_kernels.cu) compile these
// functions and numerics.hpp's for the device, so that a GPU message is defined by
// the same source as the CPU's; for every other compiler the macro is empty.
#ifdef __CUDACC__
#define DLK_CODEC_HD __host__ __device__
#else
#define DLK_CODEC_HD
#endif

namespace dlk::codec {
namespace {

template <class T>
DLK_CODEC_HD inline T load_le(const uint8_t *src) {
  T v;
  std::memcpy(&v, src, sizeof v);
  return v;
}

template <class T>
DLK_CODEC_HD inline void store_le(uint8_t *dst, T v) {
  std::memcpy(dst, &v, sizeof v);
}

DLK_CODEC_HD inline uint32_t float_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

DLK_CODEC_HD inline float bits_float(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

}  // namespace
}  // namespace dlk::codec
