// The integer output rule the CUDA kernels compile from core/numeric.hpp (round
// half to even, add the zero point, saturate; NaN gives the zero point), checked
// on the host against the conformance suite's reference, which is written from
// dlk.h's text. The device build of the same functions is exercised by the
// conformance suite on a GPU.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "core/numeric.hpp"
#include "tests/conformance/reference_int8.hpp"

namespace {

const std::vector<float> kValues = {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, 0.49999997f,
                                    126.5f, 127.5f, -128.5f, -129.5f, 254.5f, 255.5f, 1e9f, -1e9f,
                                    std::numeric_limits<float>::infinity(),
                                    -std::numeric_limits<float>::infinity(),
                                    std::numeric_limits<float>::quiet_NaN(), 8388607.5f, 3.75f, -3.25f};

}  // namespace

TEST_CASE("requantize rule: s8 and u8, every zero point edge, equal to the reference", "[cuda][int8]") {
  for (const int32_t zp : {0, 1, -1, 127, -128, 255, 100}) {
    for (const float v : kValues) {
      INFO("v = " << v << ", zero point " << zp);
      if (zp >= -128 && zp <= 127)
        CHECK(double(dlk::core::saturate_s8(v, zp)) == dlk::conformance::requantize(v, zp, DLK_DTYPE_S8));
      if (zp >= 0 && zp <= 255)
        CHECK(double(dlk::core::saturate_u8(v, zp)) == dlk::conformance::requantize(v, zp, DLK_DTYPE_U8));
    }
  }
}

TEST_CASE("requantize rule: wrapping s32 arithmetic of the zero-point correction", "[cuda][int8]") {
  // acc = product + a_offset * column_sum, modulo 2^32 like the accumulator.
  CHECK(dlk::core::wrapping_add(INT32_MAX, 1) == INT32_MIN);
  CHECK(dlk::core::wrapping_mul(65536, 65536) == 0);
  CHECK(dlk::core::wrapping_add(5, dlk::core::wrapping_mul(-3, 7)) == -16);
}
