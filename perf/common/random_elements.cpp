#include "perf/common/random_elements.hpp"

#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace dlk::perf {
namespace {

// Round to nearest even (inputs here are finite).
uint16_t to_bf16(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

}  // namespace

std::vector<unsigned char> random_elements(dlk_dtype type, size_t count, unsigned seed) {
  if (type != DLK_DTYPE_F32 && type != DLK_DTYPE_BF16 && type != DLK_DTYPE_U8 && type != DLK_DTYPE_S8)
    throw std::invalid_argument(std::string("random_elements: no random data of dtype ") + dlk_dtype_name(type));
  std::mt19937 rng(seed);
  std::vector<unsigned char> bytes(count * dlk_dtype_size(type));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> u8(0, 255), s8(-128, 127);
  for (size_t i = 0; i < count; ++i) {
    switch (type) {
      case DLK_DTYPE_F32: {
        const float v = real(rng);
        std::memcpy(&bytes[i * 4], &v, 4);
        break;
      }
      case DLK_DTYPE_BF16: {
        const uint16_t v = to_bf16(real(rng));
        std::memcpy(&bytes[i * 2], &v, 2);
        break;
      }
      case DLK_DTYPE_U8: bytes[i] = static_cast<unsigned char>(u8(rng)); break;
      default: bytes[i] = static_cast<unsigned char>(static_cast<int8_t>(s8(rng))); break;
    }
  }
  return bytes;
}

}  // namespace dlk::perf
