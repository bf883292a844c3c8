// bf16 and int8 convolution forward as an implicit GEMM on AMX tiles, no
// im2col (kernels/conv2d_amx.cpp). Each image is copied once into zero-padded
// NHWC phase planes (int8: u8, padded with src's zero point): padded pixel
// (y, x) goes to plane (y % sh, x % sw) at row y / sh, column x / sw, so a
// stride-1 convolution has one plane, the padded image, and stride 2 x 2
// four of hp / 2 x wp / 2 pixels. An output pixel (oh, ow) is computed at the
// "flat" position q = oh x wq + ow (wq: a plane's width), so that tap (r, s)
// of 32 consecutive positions reads 32 consecutive pixels of plane (r % sh,
// s % sw), q + (r / sh) x wq + s / sw on: an A tile is 16 of them, loaded
// straight from the plane with the pixel as its row stride. The positions
// with ow >= the output's width are computed and dropped (2 of wp, for a 3x3
// kernel with padding 1 at stride 1; 1 of wp / 2 at stride 2). B is the
// weights in the GEMM's k-pair (k-quad) panels of 32 output channels, taps
// outer and channels inner, packed by 32-bit transposes once per call, or
// once for all calls (dlk_conv2d_weights_create: conv2d_packed_weights.hpp). C
// tiles of 32 positions x 32 channels sum every tap and channel in the tiles
// (tdpbf16ps, tdpbusd), then go into dst by the GEMM's AVX-512 stores: bias,
// ReLU and rounding to bf16; int8's zero point compensated per output
// channel, its scales, bias, ReLU and requantization
// (kernels/gemm_store_s32_avx512.cpp, bit for bit as the GEMM lowering).
// NCHW src is turned into the planes by transposes, NCHW dst through an NHWC
// image. At batch >= threads each thread takes whole images, else a band of
// each image's tiles (or of its output channels), each thread padding the
// rows it reads into a workspace of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/backend.hpp"

namespace dlk::cpu::kernels {

// The flat positions over phase planes, as the AMX convolution kernels
// (forward here, backward weights in conv2d_amx_backward_weights_kernels.hpp)
// lay them out.
struct PhasePlanes {
  explicit PhasePlanes(const core::Conv2dArgs &args);
  int64_t hp = 0, wp = 0;  // the padded image
  int64_t hq = 0, wq = 0;  // a phase plane: hp / sh and wp / sw rounded up
  int64_t flat = 0;        // an image's positions: oh x wq rounded up to 32
  int64_t taps = 0;        // kh x kw
  // How far past a position its farthest tap reads: (kh - 1) / sh rows and
  // (kw - 1) / sw columns.
  int64_t reach = 0;
};

struct AmxConvPlan : PhasePlanes {
  AmxConvPlan(const core::Conv2dArgs &args, int threads);
  int64_t elem = 0;          // bytes of src's elements (bf16 2, int8 1)
  int64_t plane = 0;         // pixels of a plane: hq x wq, or as far as the last tile's taps reach
  int64_t blocks = 0;        // of 32 output channels
  int64_t weight_elems = 0;  // the packed panels (blocks x taps x c x 32)
  int64_t turned_weight_elems = 0;  // NCHW: the weights in KRSC first
  int64_t sums = 0;          // int8: the weights' sum per output channel
  int64_t workspaces = 0;    // one a thread (within the scratch's bound), else one for all
  bool image_per_thread = false;  // else each thread a share of each image's tiles
  // Each image in flight's workspace: its phase planes (sh x sw x plane
  // pixels), NCHW src's rows in NHWC (strides past 1: one per thread on the
  // image), NCHW dst's NHWC image (bytes).
  int64_t image_elems = 0, row_elems = 0, dst_bytes = 0;
  size_t weights_bytes = 0;  // of the scratch: the panels, turned weights, sums
  size_t bytes = 0;          // the scratch: those, then the workspaces
};

// The weights as the tiles read them, packed before the call
// (conv2d_packed_weights.hpp): the panels and (int8, src's zero point not 0)
// the weights' sums per output channel.
struct AmxConvWeights {
  const void *panels;
  const int32_t *sums;
};

// How the weights reach the kernel, which sets its floor on the output
// pixels (n x oh x ow) against the output channels (conv2d_amx_applies).
enum class AmxWeights {
  per_call,   // packed on every call (conv2d_amx_pack_weights)
  prepacked,  // packed before the call (dlk_conv2d_weights_create)
  turned,     // backward data's, packed on every call (conv2d_amx_pack_turned_weights)
};

// Whether the kernel takes the convolution (the caller checks that GEMM of
// its dtype runs on AMX here): bf16 src, weights and dst, or u8 / s8 src with
// s8 weights (any int8 dst); NCHW or NHWC, one group, a kernel larger than
// 1x1 without dilation (any stride), channels a multiple of a tile row (32
// bf16, 64 int8), padding not negative, the scratch (but for weights packed
// elsewhere) within its bound; packed per call, at least as many output
// pixels as output channels (NHWC: half as many), turned, half as many.
bool conv2d_amx_applies(const core::Conv2dArgs &args, int threads,
                        AmxWeights weights = AmxWeights::per_call);

// args' weights in KRSC: NHWC's as they lie, NCHW's turned into `stage` (k x
// kh x kw x c elements).
const void *conv2d_amx_weights_krsc(const core::Conv2dArgs &args, int threads, void *stage);

// The weights of args into `panels` (plan.weight_elems elements) and `sums`
// (plan.sums), `turned` (plan.turned_weight_elems) a step on the way.
void conv2d_amx_pack_weights(const core::Conv2dArgs &args, int threads, const AmxConvPlan &plan,
                             void *panels, int32_t *sums, void *turned);

// Backward data's turned convolution (diff_src = conv(diff_dst, the weights
// turned: output and input channels swapped, the taps reversed) packed as
// conv2d_amx_pack_weights packs a forward's: `panels` (plan.weight_elems) for
// `plan`, the turned convolution's (bf16), straight from args' weights, those
// of the convolution whose backward it is; `stage` holds its weights (NCHW).
// The turned convolution's tap t is args' tap source_taps[t] (kh x kw of
// them reversed at stride 1; a phase's at stride 2).
// The stride-1 turned convolution's source_taps: args' kh x kw taps reversed.
inline std::vector<int64_t> conv2d_amx_reversed_taps(const dlk_conv2d_desc &d) {
  std::vector<int64_t> taps(static_cast<size_t>(d.kh * d.kw));
  for (size_t t = 0; t < taps.size(); ++t) taps[t] = static_cast<int64_t>(taps.size() - 1 - t);
  return taps;
}
void conv2d_amx_pack_turned_weights(const core::Conv2dArgs &args, int threads,
                                    const AmxConvPlan &plan,
                                    const std::vector<int64_t> &source_taps, void *panels,
                                    void *stage);

// dst = conv(src, weights) (+ bias, ReLU, int8's scales, as dlk.h has it) on up
// to `threads` threads; `scratch` holds plan.bytes, or with the weights
// prepacked plan.bytes - plan.weights_bytes.
void conv2d_amx_forward(const core::Conv2dArgs &args, int threads, const AmxConvPlan &plan,
                        void *scratch, const AmxConvWeights *prepacked = nullptr);

// Its name in dlk_context_last_op.
const char *conv2d_amx_name(const dlk_conv2d_desc &d);

}  // namespace dlk::cpu::kernels
