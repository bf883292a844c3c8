// The channel-lane kernel's int8 tiles (kernels/conv2d_channel_lanes_kernels.hpp):
// the padded image holds k-quads of u8 (channels 4u .. 4u + 3 of a pixel, s8
// shifted by 128 as the integer GEMM packs A, padding the zero point shifted
// likewise) and the packed weights k-quads of s8 (the same four channels of a
// tap) in each 32-bit element, so one EVEX vpdpbusd per broadcast quad and
// vector of 16 output channels adds four products a lane into s32 sums that
// start at -(zero point x the channel's weight sum): every tap adds (src -
// src_zero_point) x weight, modulo 2^32 as dlk.h's integer rule. Compiled with
// -mavx512f -mavx512bw -mavx512vl -mavx512vnni only (never -mavxvnni: its VEX
// form is an illegal instruction on Zen 4); called only where the CPU has
// AVX512_VNNI (conv2d_channel_lanes_applies).
#include <algorithm>
#include <array>
#include <utility>

#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose16_avx512.hpp"
#include "common/immintrin.hpp"

namespace dlk::cpu::kernels {
namespace {

#include "backends/cpu_avx512/kernels/lane_masks_avx512.inc"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_tile_avx512.inc"

// s32 sums in the bits of f32 vectors, starting from int8's starting sums.
struct DotU8S8 {
  static constexpr bool kStartsFromBias = true;
  // vpdpbusd in place (through _mm512_dpbusd_epi32 GCC 12 copies the sums
  // through the stack at each tap: conv2d_wide_rows_int8_avx512vnni.cpp).
  static __m512 madd(__m512 acc, __m512 quads, __m512 weights) {
    asm("vpdpbusd %[w], %[q], %[acc]" : [acc] "+v"(acc) : [w] "v"(weights), [q] "v"(quads));
    return acc;
  }
  static __m512 relu(__m512 v) {
    return _mm512_castsi512_ps(
        _mm512_maskz_max_epi32(0xffff, _mm512_castps_si512(v), _mm512_setzero_si512()));
  }
};

}  // namespace

ChannelLanesTile channel_lanes_int8_tile(int pixels, int vectors, bool nhwc, int64_t sw) {
  return tile_of<DotU8S8>(pixels, vectors, nhwc, sw);
}

}  // namespace dlk::cpu::kernels
