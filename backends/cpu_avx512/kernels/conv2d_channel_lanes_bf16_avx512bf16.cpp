// The channel-lane kernel's bf16 tiles (kernels/conv2d_channel_lanes_kernels.hpp):
// the padded image and the packed weights hold k-pairs (channels 2u and 2u + 1
// of a pixel, of a tap) in each 32-bit element, so one vdpbf16ps per
// broadcast pair and vector of 16 output channels does two multiply-adds a
// lane, sums in f32. Compiled with -mavx512f -mavx512bw -mavx512vl
// -mavx512bf16 only; called only where the CPU has AVX512_BF16
// (conv2d_channel_lanes_applies).
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

struct DotBf16 : FloatSums {
  static __m512 madd(__m512 acc, __m512 a, __m512 b) {
    return _mm512_dpbf16_ps(acc, (__m512bh)_mm512_castps_si512(a),
                            (__m512bh)_mm512_castps_si512(b));
  }
};

}  // namespace

ChannelLanesTile channel_lanes_bf16_tile(int pixels, int vectors, bool nhwc, int64_t sw) {
  return tile_of<DotBf16>(pixels, vectors, nhwc, sw);
}

}  // namespace dlk::cpu::kernels
