// Convolution forward by GEMM, for every layout and dtype.
//
// Float types: dst (kg x pixels) = weights (kg x taps) * im2col (taps x pixels),
// one GEMM per group over all images (its batch), with B written straight into
// the GEMM's packed panels by Im2colPanelPacker, or, where the output channels
// fill the micro-kernel's tiles better than the pixels (NCHW, few pixels),
// and in NHWC from 256 pixels an image (dst^T is dst),
// dst^T (pixels x kg) = im2col^T * weights^T with A written by
// Im2colAPanelPacker (pixels_as_rows); a 1x1, stride-1, unpadded
// convolution needs no im2col at all (B, or int8's A, is src itself, a strided
// view). f32 (and bf16 where vdpbf16ps outpaces the FMAs) NCHW and NHWC with
// many output channels and pixels on the AVX-512 tier run the channel-lane
// kernel instead where conv2d_channel_lanes_applies
// (kernels/conv2d_channel_lanes_kernels.hpp): the output channels in the lanes,
// the weights packed once per call, each pixel's input broadcast; a grouped
// convolution runs it on each image's groups as convolutions of their own
// where channel_lanes_groups_apply (int8 too; conv2d_group_views.hpp); elsewhere
// NCHW on the AVX-512 tier runs the wide-row kernel where
// conv2d_wide_rows_applies (kernels/conv2d_direct_kernels.hpp):
// B read straight from a zero-padded copy of the image, nothing packed (f16,
// and bf16 where vdpbf16ps is slower than FMAs, widened to f32 there), on the
// groups of a grouped one (NHWC's turned into NCHW planes) with fewer output
// channels a group than the channel-lane kernel's 16 where
// wide_rows_groups_apply; f32
// NCHW at stride 1 with few output channels runs a direct kernel along rows
// where conv2d_direct_rows_forward_applies, or one with the channels in the
// lanes where conv2d_direct_few_channels_applies (LeNet-5's conv1 and conv2).
// C is dst itself; bias (per row) and ReLU are the GEMM's epilogue, applied in
// the store of each tile (f16/bf16 round once, after them). bf16 runs the tier's bf16
// kernel (vdpbf16ps) where it has one, the packer writing bf16 k-pairs; f16,
// and bf16 elsewhere, are converted to f32 as they are packed.
//
// int8: vpdpbusd broadcasts its s8 operand, so on a tier with that kernel
// NCHW runs dst (kg x pixels) = weights (kg x taps) * im2col (taps x pixels)
// with the weights as the GEMM's s8 A (GemmArgs::s8_a: read in place where src
// is u8 with zero point 0), im2col as its u8 B (src itself where pointwise,
// else written into the panels by Im2colAPanelPacker's u8 k-quads), the src
// zero point entering through the weights' row sums, and dst stored along its
// rows. NHWC, and NCHW on the other tiers, turn the product around, dst
// (pixels x kg) = im2col^T * weights^T, A written straight into the GEMM's
// packed panels by Im2colAPanelPacker. Either way one GEMM per group over all
// images; padding taps hold src_zero_point so that they add nothing; the
// GEMM's store requantizes with the output channel's scale, bias and ReLU.
// (With the pixels as rows an NCHW dst is stored down its columns, and the
// weights, B, are packed on every call: ResNet-50's res2a 1x1 layers ran
// 1.42-1.45x, its res5 3x3 layers 1.43-1.56x (against the wide-row kernel)
// with the channels as rows; docs/conv_pool_speed.md, fifteenth sitting.)
#include <algorithm>
#include <optional>
#include <string>

#include "backends/cpu_avx512/conv2d_group_views.hpp"
#include "backends/cpu_avx512/conv2d_im2col_packer.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_rows_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

// pixels_as_rows' floor for NHWC.
constexpr int64_t kMinNhwcPixelsAsRows = 256;

// Micro-kernel steps per k over the tiles of an m x n C, for a kernel of mr x
// nr tiles held as two vectors of nr / 2 columns: an edge tile of R rows and V
// vectors runs R x V multiply-adds per k, or R + V loads where they weigh more.
int64_t tile_steps(int64_t m, int64_t n, int64_t mr, int64_t nr) {
  const auto tile = [](int64_t rows, int64_t vectors) {
    return rows && vectors ? std::max(rows * vectors, rows + vectors) : 0;
  };
  const int64_t rows = m % mr, vectors = (n % nr + nr / 2 - 1) / (nr / 2);
  return m / mr * (n / nr * tile(mr, 2) + tile(mr, vectors)) + n / nr * tile(rows, 2) +
         tile(rows, vectors);
}

// The float forward with the output channels as the GEMM's rows: C is dst (kg
// x pixels) of group g of all images, bias per row; A the weights, read along
// their rows; B src itself where the convolution is pointwise, else (pointer
// and strides not read) the im2col matrix from Im2colPanelPacker, its dtype
// picking the GEMM's kernel (bf16 x bf16 runs the bf16 kernel where the tier
// has one).
core::GemmArgs channels_as_rows(const core::Conv2dArgs &a, const ConvShape &s, int64_t g) {
  const dlk_dtype dtype = a.desc.src_type;
  const auto elem = static_cast<int64_t>(dlk_dtype_size(dtype));
  core::MatrixView b{nullptr, dtype, 0, 0, 0};
  if (is_pointwise(s))
    b = {static_cast<const unsigned char *>(a.src) + s.src_offset(0, g) * elem, dtype,
         s.src_channel_stride(), s.src_pixel_stride(), s.c * s.h * s.w};
  core::GemmArgs gemm = single_gemm(
      s.kg, s.pixels(), s.taps(),
      {static_cast<const unsigned char *>(a.weights) + g * s.kg * s.taps() * elem, dtype,
       s.taps(), 1, 0},
      b, static_cast<unsigned char *>(a.dst) + s.dst_offset(0, g) * elem, dtype,
      s.dst_channel_stride(), s.dst_pixel_stride());
  gemm.batch = s.n;
  gemm.batch_stride_c = s.k * s.pixels();
  gemm.bias = a.bias ? a.bias + g * s.kg : nullptr;
  gemm.relu = a.desc.relu != 0;
  return gemm;
}

// Whether the float forward takes output pixels as the GEMM's rows (dst^T =
// im2col^T x weights^T, im2col^T packed as A) rather than its columns.
//
// NHWC: from kMinNhwcPixelsAsRows pixels an image, in one group. dst^T is
// then dst itself, which the micro-kernel stores in place or rounds into; with
// the channels as rows C is column-major, left to the workspace's store
// element by element (ResNet-50's NHWC projections turned, AMD EPYC Zen 4:
// res3a_proj, 784 pixels, 1.12-1.18x f32 and 1.24-1.47x bf16 at batch 1 and
// 32 on 1 and 2 threads; res4a_proj, 196 pixels, 0.96-1.13x; res5a_proj, 49
// pixels and 2048 channels, 0.75x f32 and 0.83x bf16, the weights packed for
// so few pixels; ResNeXt's 32 groups 0.6-1.6x).
//
// NCHW: where the output channels fill the kernel's tiles better than the
// pixels, by a tenth or more (dst^T is then column-major: the GEMM stores it
// from its workspace). The weights are then the GEMM's B, packed on every
// call, whose KC x NC block is meant for L3: all kg columns of it (NC is
// larger) must stay within the L2 that the blocking was derived from (the A
// block MC x KC is half of it), or the micro-kernel streams them from L3
// (res5a_proj, 2048 channels of a 1x1/2: 0.9x turned). And where the GEMM with
// the channels as rows reads the weights in place (so few pixels that packing
// them would cost nearly what the product reads of them), that saving
// outweighs the better-filled tiles: ResNet-50's res5 3x3 layers (49 pixels: 2
// panels of 32 columns hold them at 77 %, 4 micro-rows of 14 at 88 %) ran
// 1.04-1.26x with the channels as rows (see docs/cpu_conv_pool.md).
//
// Never pointwise (B is src itself).
bool pixels_as_rows(const core::Conv2dArgs &a, const ConvShape &s, core::CpuIsa isa) {
  if (is_pointwise(s)) return false;
  // The A packer writes k-pairs, not the AMX kernel's rows.
  if (lowers_to_amx_gemm(a, isa)) return false;
  if (s.nhwc) return s.groups == 1 && s.pixels() >= kMinNhwcPixelsAsRows;
  const GemmBlocking &b = gemm_kernel_set(isa).f32.blocking;
  const int64_t l2_floats = 2 * (b.mc + b.mr) * b.kc;
  return s.kg * std::min(s.taps(), b.kc) <= l2_floats &&
         tile_steps(s.pixels(), s.kg, b.mr, b.nr) * 10 <
             tile_steps(s.kg, s.pixels(), b.mr, b.nr) * 9 &&
         !gemm_reads_a_in_place(channels_as_rows(a, s, 0), isa);
}

const char *forward_float(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const ConvShape s(a);
  const dlk_dtype dtype = a.desc.src_type;
  const bool turned = pixels_as_rows(a, s, isa);
  return for_each_group(s, threads, [&](int64_t g, int team) {
    const core::GemmArgs gemm = channels_as_rows(a, s, g);
    if (turned) {
      // C is dst^T (pixels x kg) of all images, bias per column; B the
      // weights^T, read down their rows; A im2col^T from the packer.
      const Im2colAPanelPacker packer(s, a.src, dtype, 0, g, gemm_kernel_set(isa).pack,
                                      im2col_nchw_kernels(isa));
      return gemm_strided(transposed(gemm), isa, team, nullptr, core::CpuGemmPath::rule,
                          &packer);
    }
    if (is_pointwise(s)) return gemm_strided(gemm, isa, team);
    const Im2colPanelPacker packer(s, a.src, dtype, g, gemm_kernel_set(isa).pack,
                                   im2col_nchw_kernels(isa));
    return gemm_strided(gemm, isa, team, &packer);
  });
}

// Whether the int8 forward takes the output channels as the GEMM's rows: NCHW
// (dst is then stored along its rows) on a tier with an s8 A x u8 B kernel.
bool int8_channels_as_rows(const ConvShape &s, core::CpuIsa isa) {
  return !s.nhwc && gemm_kernel_set(isa).s8u8.run;
}

// The int8 forward of group g of all images with the output channels as the
// GEMM's rows: C is dst (kg x pixels), requantized by the store with the
// channel's multiplier, bias and ReLU; A the weights (s8), read where they lie
// (src u8 with zero point 0) or packed; B src (u8 or s8, its zero point) itself
// where the convolution is pointwise, else (pointer and strides not read) the
// im2col matrix.
core::GemmArgs int8_channels_as_rows_gemm(const core::Conv2dArgs &a, const ConvShape &s,
                                          int64_t g) {
  const size_t dst_elem = dlk_dtype_size(a.desc.dst_type);
  core::MatrixView src{nullptr, a.desc.src_type, 0, 0, 0};
  if (is_pointwise(s))
    src = {static_cast<const unsigned char *>(a.src) + s.src_offset(0, g), a.desc.src_type,
           s.src_channel_stride(), s.src_pixel_stride(), s.c * s.h * s.w};
  core::GemmArgs gemm = single_gemm(
      s.kg, s.pixels(), s.taps(),
      {static_cast<const int8_t *>(a.weights) + g * s.kg * s.taps(), DLK_DTYPE_S8, s.taps(), 1,
       0},
      src, static_cast<unsigned char *>(a.dst) + s.dst_offset(0, g) * dst_elem, a.desc.dst_type,
      s.dst_channel_stride(), s.dst_pixel_stride());
  gemm.batch = s.n;
  gemm.batch_stride_c = s.k * s.pixels();
  gemm.s8_a = true;
  gemm.b_zero_point = a.desc.src_zero_point;
  gemm.c_zero_point = a.desc.dst_zero_point;
  gemm.column_multipliers = a.channel_multipliers ? a.channel_multipliers + g * s.kg : nullptr;
  gemm.multiplier = a.multiplier;
  gemm.bias = a.bias ? a.bias + g * s.kg : nullptr;
  gemm.relu = a.desc.relu != 0;
  return gemm;
}

// With the channels as rows the weights are the s8 A (vpdpbusd's broadcast)
// and im2col's u8 k-quads, which Im2colAPanelPacker writes, the B panels;
// otherwise the product is turned around, the pixels as rows, im2col^T the u8
// A (written by the same packer) and src's zero point on it.
const char *forward_int8(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const ConvShape s(a);
  const bool channels_as_rows = int8_channels_as_rows(s, isa);
  return for_each_group(s, threads, [&](int64_t g, int team) {
    core::GemmArgs gemm = int8_channels_as_rows_gemm(a, s, g);
    if (!channels_as_rows) gemm = transposed(gemm);
    if (is_pointwise(s)) return gemm_strided(gemm, isa, team);
    const Im2colAPanelPacker pixels(s, a.src, a.desc.src_type, a.desc.src_zero_point, g,
                                    gemm_kernel_set(isa).pack, im2col_nchw_kernels(isa));
    if (!channels_as_rows)
      return gemm_strided(gemm, isa, team, nullptr, core::CpuGemmPath::rule, &pixels);
    const Im2colU8QuadsBPanelPacker packer(pixels);
    return gemm_strided(gemm, isa, team, &packer);
  });
}

}  // namespace

const char *conv2d_forward_float_gemm(const core::Conv2dArgs &args, core::CpuIsa isa,
                                      int threads) {
  return forward_float(args, isa, threads);
}

namespace {

// The forward's kernels in the order conv2d_forward_im2col tries them: the
// first whose rule takes the convolution runs (gemm: none did).
enum class ForwardKernel {
  amx,
  direct_rows,
  direct_rows_nhwc,
  wide_rows_groups,
  few_channels,
  channel_lanes,
  channel_lanes_groups,
  wide_rows,
  gemm
};

// f32 NHWC by the NCHW direct-rows kernel: its NCHW twin's plan, then an NCHW
// dst that is turned into NHWC.
struct DirectRowsNhwc {
  DirectRowsNhwc(const core::Conv2dArgs &args, int threads)
      : twin(kernels::nchw_twin(args)),
        plan(twin, threads, false),
        plan_bytes(ScratchCarver::aligned(plan.bytes)),
        dst_bytes(static_cast<size_t>(args.desc.n * args.desc.k * args.oh * args.ow) *
                  sizeof(float)) {}
  core::Conv2dArgs twin;
  kernels::DirectRowsPlan plan;
  size_t plan_bytes, dst_bytes;
};

// The chosen kernel, with direct_rows_nhwc's plan (its rule needs it).
struct ForwardChoice {
  ForwardKernel kernel;
  std::optional<DirectRowsNhwc> nhwc;
};

// Whether a grouped forward runs the channel-lane kernel on each image's
// groups, each a convolution of its own, a thread each: where the kernel's
// rule takes one (16 or more output channels a group, their taps past its
// floor), its floor on the pixels that of weights packed before the call: a
// group's weights are few (ResNeXt-50 conv5's 32 x 288), so packing them per
// call weighs little. The GEMM's im2col panels were reused by only kg output
// channels, and packing them took longer than the products (conv4, 32 groups
// of 16: 12 % of the call against the micro-kernel's 10 %).
bool channel_lanes_groups_apply(const core::Conv2dArgs &a, int threads) {
  if (a.desc.groups <= 1) return false;
  const core::Conv2dArgs group = conv2d_group_of_image(a, GroupPass::forward, 0, 0);
  return kernels::conv2d_channel_lanes_applies(group, 1, false, /*prepacked=*/true) &&
         conv2d_group_views_fit(a, GroupPass::forward, threads,
                                kernels::ChannelLanesPlan(group, 1).bytes);
}

// Whether a grouped forward runs the wide-row kernel on each image's groups,
// a thread each: where its rule takes a group as one (`of_group`: 4 to 15
// output channels a group, which the channel-lane kernel's 16 lanes do not
// fill; ResNeXt-50 conv2 and conv3); NHWC's groups turned into NCHW planes
// and back (GroupLayout::nchw). The few-channel kernel, checked after, took
// conv3's 8 a group at half this speed (f32).
bool wide_rows_groups_apply(const core::Conv2dArgs &a, int threads) {
  if (a.desc.groups <= 1 || a.k_per_group >= 16) return false;
  const core::Conv2dArgs group =
      conv2d_group_as_nchw(a, GroupPass::forward, 0, 0, nullptr, nullptr, nullptr);
  return kernels::conv2d_wide_rows_applies(group, 1, false, /*of_group=*/true) &&
         conv2d_group_views_fit(a, GroupPass::forward, threads,
                                kernels::WideRowsPlan(group, 1).bytes, GroupLayout::nchw);
}

// Whether the channel-lane kernel's (the AMX kernel's) weights are packed
// before the call, which lowers its rule's floor on the pixels.
struct Prepacked {
  bool lanes = false, amx = false;
};

ForwardChoice forward_kernel(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                             Prepacked prepacked) {
  if (isa != core::CpuIsa::avx512) return {ForwardKernel::gemm, {}};
  if (lowers_to_amx_gemm(args, isa))
    return {kernels::conv2d_amx_applies(args, threads,
                                        prepacked.amx ? kernels::AmxWeights::prepacked
                                                      : kernels::AmxWeights::per_call)
                ? ForwardKernel::amx
                : ForwardKernel::gemm,
            {}};
  if (kernels::conv2d_direct_rows_forward_applies(args)) return {ForwardKernel::direct_rows, {}};
  if (kernels::conv2d_direct_rows_forward_nhwc_applies(args)) {
    ForwardChoice choice{ForwardKernel::direct_rows_nhwc, DirectRowsNhwc(args, threads)};
    if (choice.nhwc->plan_bytes + choice.nhwc->dst_bytes <= kScratchBound) return choice;
  }
  if (wide_rows_groups_apply(args, threads)) return {ForwardKernel::wide_rows_groups, {}};
  if (kernels::conv2d_direct_few_channels_applies(args)) return {ForwardKernel::few_channels, {}};
  if (kernels::conv2d_channel_lanes_applies(args, threads, false, prepacked.lanes))
    return {ForwardKernel::channel_lanes, {}};
  if (channel_lanes_groups_apply(args, threads)) return {ForwardKernel::channel_lanes_groups, {}};
  if (kernels::conv2d_wide_rows_applies(args, threads)) return {ForwardKernel::wide_rows, {}};
  return {ForwardKernel::gemm, {}};
}

}  // namespace

bool conv2d_forward_packed_runs_channel_lanes(const core::Conv2dArgs &args, core::CpuIsa isa,
                                              int threads) {
  return forward_kernel(args, isa, threads, {true, false}).kernel ==
         ForwardKernel::channel_lanes;
}

bool conv2d_forward_packed_runs_amx(const core::Conv2dArgs &args, core::CpuIsa isa, int threads) {
  return forward_kernel(args, isa, threads, {false, true}).kernel == ForwardKernel::amx;
}

core::OpResult conv2d_forward_im2col(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                     Scratch &scratch, const PrepackedConv2dWeights &prepacked) {
  ForwardChoice choice = forward_kernel(args, isa, threads,
                                        {prepacked.lanes != nullptr, prepacked.amx != nullptr});
  switch (choice.kernel) {
    case ForwardKernel::amx: {
      const kernels::AmxConvPlan plan(args, threads);
      kernels::conv2d_amx_forward(
          args, threads, plan,
          prepacked.amx ? scratch.get(plan.bytes - plan.weights_bytes, "dlk_conv2d_forward_packed",
                                      "the padded images")
                        : scratch.get(plan.bytes, "dlk_conv2d_forward",
                                      "the packed weights and padded image"),
          prepacked.amx);
      const std::string name = kernels::conv2d_amx_name(args.desc);
      return {prepacked.amx ? name + ":prepacked" : name, 0};
    }
    case ForwardKernel::direct_rows: {
      const kernels::DirectRowsPlan plan(args, threads, false);
      kernels::conv2d_direct_rows_forward_avx512(
          args, plan,
          scratch.get(plan.bytes, "dlk_conv2d_forward", "the turned weights and padded images"));
      return {"avx512:conv2d_direct_rows_f32", 0};
    }
    case ForwardKernel::direct_rows_nhwc: {
      DirectRowsNhwc &nhwc = *choice.nhwc;
      const dlk_conv2d_desc &d = args.desc;
      const int64_t pixels = args.oh * args.ow, image_out = d.k * pixels;
      auto *base = static_cast<unsigned char *>(
          scratch.get(nhwc.plan_bytes + nhwc.dst_bytes, "dlk_conv2d_forward",
                      "the turned weights, padded images and NCHW dst"));
      auto *nchw_dst = reinterpret_cast<float *>(base + nhwc.plan_bytes);
      nhwc.twin.dst = nchw_dst;
      kernels::conv2d_direct_rows_forward_avx512(nhwc.twin, nhwc.plan, base);
      auto *dst = static_cast<float *>(args.dst);
      parallel_for(d.n, threads, [&](int64_t image, int) {
        nchw_pixels_to_nhwc(nchw_dst + image * image_out, d.k, pixels, 0, pixels,
                            dst + image * image_out, [](float v) { return v; });
      });
      return {"avx512:conv2d_direct_rows_f32_nhwc", 0};
    }
    case ForwardKernel::few_channels:
      kernels::conv2d_direct_few_channels_avx512(
          args, threads,
          scratch.get(kernels::conv2d_direct_few_channels_scratch_bytes(args, threads),
                      "dlk_conv2d_forward", "the zero-padded image of each thread"));
      return {"avx512:conv2d_direct_f32", 0};
    case ForwardKernel::channel_lanes: {
      const kernels::ChannelLanesPlan plan(args, threads);
      kernels::conv2d_channel_lanes_avx512(
          args, threads, plan,
          prepacked.lanes ? scratch.get(plan.bytes - plan.weights_bytes,
                                        "dlk_conv2d_forward_packed", "the padded images")
                          : scratch.get(plan.bytes, "dlk_conv2d_forward",
                                        "the packed weights and the padded images"),
          prepacked.lanes);
      const std::string name = kernels::conv2d_channel_lanes_name(args.desc);
      return {prepacked.lanes ? name + ":prepacked" : name, 0};
    }
    case ForwardKernel::channel_lanes_groups: {
      const kernels::ChannelLanesPlan plan(
          conv2d_group_of_image(args, GroupPass::forward, 0, 0), 1);
      for_each_group_of_image(args, GroupPass::forward, threads, plan.bytes, scratch,
                              "dlk_conv2d_forward",
                              "each thread's packed weights and padded image of a group",
                              [&](const core::Conv2dArgs &group, void *own) {
                                kernels::conv2d_channel_lanes_avx512(group, 1, plan, own);
                              });
      return {std::string(kernels::conv2d_channel_lanes_name(args.desc)) + ":groups", 0};
    }
    case ForwardKernel::wide_rows_groups: {
      const kernels::WideRowsPlan plan(
          conv2d_group_as_nchw(args, GroupPass::forward, 0, 0, nullptr, nullptr, nullptr), 1);
      for_each_group_of_image(
          args, GroupPass::forward, threads, plan.bytes, scratch, "dlk_conv2d_forward",
          "each thread's padded image of a group and the taps' offsets",
          [&](const core::Conv2dArgs &group, void *own) {
            kernels::conv2d_wide_rows_avx512(group, 1, plan, own);
          },
          GroupLayout::nchw);
      return {std::string(kernels::conv2d_wide_rows_name(args.desc.src_type, false)) + ":groups",
              0};
    }
    case ForwardKernel::wide_rows: {
      const kernels::WideRowsPlan plan(args, threads);
      kernels::conv2d_wide_rows_avx512(
          args, threads, plan,
          scratch.get(plan.bytes, "dlk_conv2d_forward", "the padded images and the taps' offsets"));
      return {kernels::conv2d_wide_rows_name(args.desc.src_type, false), 0};
    }
    case ForwardKernel::gemm:
      break;
  }
  const bool int8 = args.desc.src_type == DLK_DTYPE_U8 || args.desc.src_type == DLK_DTYPE_S8;
  const char *kernel =
      int8 ? forward_int8(args, isa, threads) : conv2d_forward_float_gemm(args, isa, threads);
  const ConvShape s(args);
  // "_a": im2col^T packed as the GEMM's A, pixels its rows.
  const bool turned = int8 ? !int8_channels_as_rows(s, isa) : pixels_as_rows(args, s, isa);
  const char *lowering = is_pointwise(s) ? "gemm:"
                         : turned        ? "im2col_packed_a+"
                                         : "im2col_packed+";
  return {std::string(lowering) + kernel, 0};
}

}  // namespace dlk::cpu
