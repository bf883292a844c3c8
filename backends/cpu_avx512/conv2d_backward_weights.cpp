// Convolution backward-weights as one GEMM per group and image on packed
// im2col^T panels (Im2colTransposePanelPacker): no im2col matrix in memory.
//
//   diff_weights (kg x taps) = sum over images of diff_dst (kg x pixels) * im2col^T
//
// The images' products add up in C (beta 1 after the first). diff_bias rides in
// the same GEMM as one more column of B, all ones, so C's last column is the sum
// of diff_dst over pixels. C is diff_weights itself when it is f32, without the
// bias column, and one GEMM at a time writes it; otherwise an f32 accumulator of
// kg x (taps + 1) per thread in the context's scratch, stored (f16/bf16 rounded
// once) after the last image.
//
// f32 NCHW with 4 to 16 output channels runs the AVX-512 tier's direct kernel
// instead, and with more, where kw is 3, 5 or 7, its channel-block kernel
// (f16 and bf16 too; kernels/conv2d_direct_backward_weights_kernels.hpp), which
// NHWC runs too where the rule below says; a grouped convolution runs them on
// each group where they take it (conv2d_backward_weights_groups.hpp).
//
// A 1x1 stride-1 convolution without padding has src^T itself for im2col^T:
// B is a strided view of src (no packer), diff_bias a vectorised sum of
// diff_dst into the same column, and in NHWC the images are one GEMM, k
// running over all their pixels (split among the threads by runs of pixels
// where each has enough), its A (diff_dst^T) read down its columns where the
// GEMM's rule says.
#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_backward_weights_groups.hpp"
#include "backends/cpu_avx512/conv2d_im2col_packer.hpp"
#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_amx_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_backward_weights_kernels.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

// Below this many multiply-adds an image's GEMM is too small to share among
// threads (the team's start costs more than it saves): threads take whole
// images instead, each summing into an accumulator of its own.
constexpr int64_t kSharedGemmMacs = int64_t{1} << 22;
// A 1x1 NHWC weight gradient is one GEMM whose k runs over every pixel of the
// batch; threads with at least this many pixels each take a run of them into
// sums of their own, read each of diff_dst and src once between them, and add
// the sums after. Split by blocks of C instead, each of 2 threads read all of
// diff_dst or src (ResNet-50 at batch 32, 2 threads, f32: res2a_1x1a 1.48x, res2a_1x1b
// 1.17x, res3-res4 1.04-1.09x as fast split by pixels). From 256 pixels a
// thread, the sums (up to 256 KB a thread) added and stored after a GEMM of a
// few hundred k lost at batch 1 (res3b_1x1a 0.88x, res2a_1x1b 0.93x).
constexpr int64_t kMinPixelsPerThread = 2048;

// A block of C: rows (output channels) [i0, i1), columns [j0, j1) (taps, then
// the bias column).
struct CBlock {
  int64_t i0, i1, j0, j1;
};

template <class Storage>
class WeightsGradient {
  using T = typename Storage::type;

 public:
  WeightsGradient(const core::Conv2dArgs &a, const ConvShape &s)
      : a_(a), s_(s), cols_(s.taps() + (a.diff_bias ? 1 : 0)) {}

  int64_t accumulator_size() const { return s_.kg * cols_; }
  // Whether C can be diff_weights itself.
  bool in_place() const { return std::is_same_v<T, float> && !a_.diff_bias; }

  // Whether one GEMM's k can run over any run of pixels: a 1x1 NHWC
  // convolution's pixels of consecutive images lie at one stride in src and
  // in diff_dst.
  bool pixels_in_one_run() const { return is_pointwise(s_) && s_.nhwc; }
  // Images that one GEMM can take together (C loaded and stored once, not per
  // image).
  int64_t images_per_gemm() const { return pixels_in_one_run() ? s_.n : 1; }

  // Block b of C (+)= diff_dst * im2col^T of images [image, image + count)
  // (count > 1 only up to images_per_gemm), group g; C has row stride ldc.
  const char *add_images(int64_t g, int64_t image, int64_t count, float *c, int64_t ldc,
                         bool first, core::CpuIsa isa, int threads, const CBlock &b) const {
    if (is_pointwise(s_))
      return add_pointwise(s_.dst_offset(image, g), s_.src_offset(image, g),
                           count * s_.pixels(), c, ldc, first, isa, threads, b);
    const T *diff_dst = static_cast<const T *>(a_.diff_dst) + s_.dst_offset(image, g) +
                        b.i0 * s_.dst_channel_stride();
    const core::MatrixView a{diff_dst, a_.desc.src_type, s_.dst_channel_stride(),
                             s_.dst_pixel_stride(), 0};
    const int64_t rows = b.i1 - b.i0, j0 = b.j0, j1 = b.j1;
    c += b.i0 * ldc;
    const size_t elem = sizeof(T);
    const void *src = static_cast<const unsigned char *>(a_.src) + s_.src_offset(image, 0) * elem;
    const Im2colTransposePanelPacker packer(s_, src, a_.desc.src_type, g, a_.diff_bias != nullptr,
                                            gemm_kernel_set(isa).pack, j0);
    // B's dtype (the packer's source) lets bf16 run the bf16 kernel where the
    // tier has one: the packer then writes k-pairs.
    core::GemmArgs gemm = single_gemm(rows, j1 - j0, s_.pixels(), a,
                                      {nullptr, a_.desc.src_type, 0, 0, 0}, c + j0,
                                      DLK_DTYPE_F32, ldc, 1);
    gemm.beta = first ? 0.0f : 1.0f;
    return gemm_strided(gemm, isa, threads, &packer);
  }

  // Block b of C (+)= the products of pixels [pixel, pixel + count) of all
  // images taken as one run (pixels_in_one_run), group g.
  const char *add_pixels(int64_t g, int64_t pixel, int64_t count, float *c, int64_t ldc,
                         bool first, core::CpuIsa isa, int threads, const CBlock &b) const {
    return add_pointwise(s_.dst_offset(0, g) + pixel * s_.dst_pixel_stride(),
                         s_.src_offset(0, g) + pixel * s_.src_pixel_stride(), count, c, ldc,
                         first, isa, threads, b);
  }

  // Stores block b of accumulator `acc` of group g into diff_weights (columns
  // below taps) and diff_bias (column taps, where given).
  void store(int64_t g, const float *acc, const CBlock &b, core::CpuIsa isa) const {
    const int64_t taps = s_.taps(), j0 = b.j0, j1 = b.j1, jw = std::min(j1, taps);
    T *weights = static_cast<T *>(a_.diff_weights) + g * s_.kg * taps;
    for (int64_t kk = b.i0; kk < b.i1; ++kk) {
      const float *row = acc + kk * cols_;
      if (j0 < jw)
        store_run<Storage>(row + j0, jw - j0, weights + kk * taps + j0,
                           gemm_kernel_set(isa).round_bf16);
      if (a_.diff_bias && j1 > taps) a_.diff_bias[g * s_.kg + kk] = row[taps];
    }
  }

  float *weights_of(int64_t g) const {
    return static_cast<float *>(a_.diff_weights) + g * s_.kg * s_.taps();
  }
  int64_t columns() const { return cols_; }

 private:
  // add_images of a 1x1 convolution at stride 1 without padding over `pixels`
  // pixels of diff_dst and src from those offsets: im2col^T is src^T itself, a
  // strided view (no packer: 1.03-1.26x as fast on ResNet-50's 1x1 layers, 1
  // thread); diff_bias a sum of its own.
  const char *add_pointwise(int64_t dst_offset, int64_t src_offset, int64_t pixels,
                            float *c, int64_t ldc, bool first, core::CpuIsa isa, int threads,
                            const CBlock &b) const {
    const T *diff_dst = static_cast<const T *>(a_.diff_dst) + dst_offset +
                        b.i0 * s_.dst_channel_stride();
    const core::MatrixView a{diff_dst, a_.desc.src_type, s_.dst_channel_stride(),
                             s_.dst_pixel_stride(), 0};
    const int64_t rows = b.i1 - b.i0, j0 = b.j0, j1 = b.j1;
    c += b.i0 * ldc;
    const int64_t taps = s_.taps(), jw = std::min(j1, taps);
    const char *kernel = "none";
    if (j0 < jw) {
      core::GemmArgs gemm = single_gemm(
          rows, jw - j0, pixels, a,
          {static_cast<const T *>(a_.src) + src_offset + j0 * s_.src_channel_stride(),
           a_.desc.src_type, s_.src_pixel_stride(), s_.src_channel_stride(), 0},
          c + j0, DLK_DTYPE_F32, ldc, 1);
      gemm.beta = first ? 0.0f : 1.0f;
      kernel = gemm_strided(gemm, isa, threads);
    }
    if (j1 > taps) add_bias_column(diff_dst, rows, pixels, c + taps, ldc, first);
    return kernel;
  }

  // C's bias column (column with row stride ldc) (+)= the sums of the first
  // `pixels` pixels of diff_dst's first `rows` channels, in kLanes partial sums
  // that the compiler vectorises (one running sum was a chain of dependent
  // adds: 0.87x the fused ones column's speed on res2a_1x1a).
  void add_bias_column(const T *diff_dst, int64_t rows, int64_t pixels, float *column,
                       int64_t ldc, bool first) const {
    constexpr int64_t kLanes = 64;
    const int64_t cst = s_.dst_channel_stride(), pst = s_.dst_pixel_stride();
    for (int64_t k0 = 0; k0 < rows; k0 += s_.nhwc ? kLanes : 1) {
      float lanes[kLanes] = {};
      float total = 0.0f;
      if (s_.nhwc) {  // lanes are channels, contiguous
        const int64_t width = std::min(kLanes, rows - k0);
        for (int64_t p = 0; p < pixels; ++p)
          for (int64_t l = 0; l < width; ++l) lanes[l] += Storage::load(diff_dst[p * pst + k0 + l]);
        for (int64_t l = 0; l < width; ++l)
          column[(k0 + l) * ldc] = (first ? 0.0f : column[(k0 + l) * ldc]) + lanes[l];
        continue;
      }
      const T *row = diff_dst + k0 * cst;  // lanes are runs of pixels
      int64_t p = 0;
      for (; p + kLanes <= pixels; p += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) lanes[l] += Storage::load(row[p + l]);
      for (; p < pixels; ++p) total += Storage::load(row[p]);
      for (int64_t l = 0; l < kLanes; ++l) total += lanes[l];
      column[k0 * ldc] = (first ? 0.0f : column[k0 * ldc]) + total;
    }
  }

  const core::Conv2dArgs &a_;
  const ConvShape &s_;
  int64_t cols_;
};

template <class Storage>
const char *backward_weights(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                             Scratch &scratch) {
  using T = typename Storage::type;
  const ConvShape s(a);
  const WeightsGradient<Storage> grad(a, s);
  if (s.n == 0) {  // an empty batch: zero gradients
    std::fill_n(static_cast<T *>(a.diff_weights), s.k * s.taps(), Storage::store(0.0f));
    if (a.diff_bias) std::fill_n(a.diff_bias, s.k, 0.0f);
    return "none";
  }
  const int64_t image_macs = s.kg * grad.columns() * s.pixels();
  // Independent accumulators: one per group, or per thread over the images
  // (or, as one run, the pixels) of a group.
  const bool over_groups = s.groups >= threads;
  const bool over_pixels = !over_groups && threads > 1 && grad.pixels_in_one_run() &&
                           s.n * s.pixels() >= kMinPixelsPerThread * threads;
  const bool over_images =
      over_pixels || (!over_groups && image_macs < kSharedGemmMacs && s.n >= 2);
  int outer = team_size(over_groups ? s.groups : over_pixels ? threads : over_images ? s.n : 1,
                        threads);
  const size_t acc_bytes = ScratchCarver::aligned(grad.accumulator_size() * sizeof(float));
  outer = static_cast<int>(std::clamp<size_t>(kScratchBound / acc_bytes, 1, outer));
  const bool direct = grad.in_place() && !over_images;
  float *accs = direct ? nullptr
                       : static_cast<float *>(scratch.get(
                             acc_bytes * outer, "dlk_conv2d_backward_weights",
                             "the f32 weight gradient of one group, k/groups (" +
                                 std::to_string(s.kg) + ") x taps (" + std::to_string(s.taps()) +
                                 ") per thread,"));
  const auto acc_of = [&](int thread) { return accs + acc_bytes / sizeof(float) * thread; };
  const int inner = outer > 1 ? 1 : threads;
  const char *kernel = "";

  if (!over_images) {
    // The threads sharing a group take blocks of its C, each its own GEMMs on
    // one thread: no barriers, and each thread rounds only its own block into
    // diff_weights (by one thread after the GEMMs, that took half of
    // res5b_1x1a's bf16 time on 1 thread and left the second thread waiting).
    // Each thread packs all of the operand the split leaves whole: runs of
    // columns (of 32, whole panels of B) leave diff_dst whole, runs of rows
    // (of the micro-kernel's MR) B. Rows where C has more rows than columns
    // and B is src itself (1x1 at stride 1): by columns, each of 2 threads
    // packed all of diff_dst for 32 of res2a_1x1b's 64 columns (rows: NHWC
    // 1.13-1.29x on 2 threads). im2col^T costs more an element to pack than
    // diff_dst, and the strided 1x1 projections ran 0.80-1.12x by rows.
    const int64_t columns = direct ? s.taps() : grad.columns();
    const bool by_rows = is_pointwise(s) && s.kg > columns;
    const int64_t unit = by_rows ? gemm_kernel_set(isa).f32.blocking.mr : 32;
    const int64_t extent = by_rows ? s.kg : columns, units = (extent + unit - 1) / unit;
    const int parts = team_size(units, inner);
    parallel_for(s.groups, outer, [&](int64_t g, int thread) {
      float *c = direct ? grad.weights_of(g) : acc_of(thread);
      parallel_for(parts, parts, [&](int64_t part, int) {
        const int64_t u0 = units * part / parts * unit;
        const int64_t u1 = std::min(extent, units * (part + 1) / parts * unit);
        const CBlock block = by_rows ? CBlock{u0, u1, 0, columns} : CBlock{0, s.kg, u0, u1};
        const int64_t step = grad.images_per_gemm();
        for (int64_t image = 0; image < s.n; image += step) {
          const char *name = grad.add_images(g, image, std::min(step, s.n - image), c, columns,
                                             image == 0, isa, 1, block);
          if (thread == 0 && part == 0) kernel = name;
        }
        if (!direct) grad.store(g, c, block, isa);
      });
    });
    return kernel;
  }
  // Threads take runs of images (or, over_pixels, of the batch's pixels) and
  // sum them into their own accumulators, added into the first one afterwards.
  const CBlock whole{0, s.kg, 0, grad.columns()};
  for (int64_t g = 0; g < s.groups; ++g) {
    parallel_for(outer, outer, [&](int64_t part, int) {
      float *c = acc_of(static_cast<int>(part));
      if (over_pixels) {
        const int64_t pixels = s.n * s.pixels();
        const int64_t p0 = pixels * part / outer, p1 = pixels * (part + 1) / outer;
        const char *name = grad.add_pixels(g, p0, p1 - p0, c, grad.columns(), true, isa, 1, whole);
        if (part == 0) kernel = name;
        return;
      }
      const int64_t i0 = s.n * part / outer, i1 = s.n * (part + 1) / outer;
      const int64_t step = grad.images_per_gemm();
      for (int64_t image = i0; image < i1; image += step) {
        const char *name = grad.add_images(g, image, std::min(step, i1 - image), c,
                                           grad.columns(), image == i0, isa, 1, whole);
        if (part == 0) kernel = name;
      }
    });
    const int64_t size = grad.accumulator_size();
    const int parts = team_size(size / 4096 + 1, threads);
    parallel_for(parts, threads, [&](int64_t chunk, int) {
      const int64_t e0 = size * chunk / parts, e1 = size * (chunk + 1) / parts;
      float *sum = acc_of(0);
      for (int part = 1; part < outer; ++part) {
        const float *add = acc_of(part);
        for (int64_t e = e0; e < e1; ++e) sum[e] += add[e];
      }
    });
    grad.store(g, acc_of(0), whole, isa);
  }
  return kernel;
}

// NHWC with fewer than 16 channels (ResNet-50's conv1: 3) packs its im2col^T
// rows as runs of c values, and ran at 0.22-0.32x oneDNN-any (Zen 5, batch 1)
// where NCHW's channel-block kernel ran 1.16-1.18x. Such a shape runs that
// kernel on the NHWC tensors (src turned channel-major as it is padded,
// diff_dst read pixel-major where it lies), its gradient in OIHW in the
// context's scratch, then turned into OHWI. So do images of at least
// kNhwcMinPixels output pixels with up to kNhwcMaxChannels channels, where the
// kernel's work per byte of src is high (against the GEMM, Zen 5, batch 1, 1 /
// 2 threads, when src and diff_dst were staged transposed: ResNet-50 res2a f32
// 1.27 / 1.40x, bf16 2.06x on 1 thread; res3b 1.07-1.53x; VGG-16 conv1_2,
// conv2_2, conv3_2 f32 0.97-1.20x, bf16 1.36-2.00x), but not smaller images
// or more channels (res4a, res4b 0.59-0.88x, res5b 0.46-0.58x, conv4_2
// 0.83-0.97x). Smaller images with up to kNhwcMaxChannels channels do where
// the threads split the batch (ChannelBlocksBackwardWeightsPlan::over_images):
// at batch 32 on 2 threads res4a, res4b 1.11-1.25x the GEMM, where 512
// channels lost (res5a f32 0.90x, conv4_2 bf16 0.94x).
constexpr int64_t kNhwcMinPixels = 28 * 28;
constexpr int64_t kNhwcMaxChannels = 256;

size_t oihw_weights_bytes(const dlk_conv2d_desc &d) {
  return ScratchCarver::aligned(static_cast<size_t>(d.k * d.c * d.kh * d.kw) *
                                dlk_dtype_size(d.src_type));
}

bool runs_nhwc_channel_blocks(const core::Conv2dArgs &a, core::CpuIsa isa, int threads) {
  const dlk_conv2d_desc &d = a.desc;
  if (isa != core::CpuIsa::avx512 || d.format != DLK_FORMAT_NHWC ||
      lowers_to_amx_gemm(a, isa) ||
      !kernels::conv2d_channel_blocks_backward_weights_applies(a, threads))
    return false;
  const kernels::ChannelBlocksBackwardWeightsPlan plan(a, threads);
  const bool few_channels = d.c < 16;
  const bool large_share = d.c <= kNhwcMaxChannels &&
                           (a.oh * a.ow >= kNhwcMinPixels || plan.over_images);
  return (few_channels || large_share) && oihw_weights_bytes(d) + plan.bytes <= kScratchBound;
}

std::string backward_weights_nhwc(const core::Conv2dArgs &a, int threads, Scratch &scratch) {
  const dlk_conv2d_desc &d = a.desc;
  const kernels::ChannelBlocksBackwardWeightsPlan plan(a, threads);
  const size_t weights_bytes = oihw_weights_bytes(d);
  auto *weights = static_cast<unsigned char *>(
      scratch.get(weights_bytes + plan.bytes, "dlk_conv2d_backward_weights",
                  "the weight gradient in OIHW and the channel-block kernel's "
                  "sums and padded image"));
  core::Conv2dArgs oihw = a;
  oihw.diff_weights = weights;
  kernels::conv2d_channel_blocks_backward_weights_avx512(oihw, plan, weights + weights_bytes);
  // OIHW (k rows of c x kh*kw) into OHWI (k rows of kh*kw x c), an output
  // channel per task.
  const size_t elem = dlk_dtype_size(d.src_type),
               row = static_cast<size_t>(d.c * d.kh * d.kw) * elem;
  auto *to = static_cast<unsigned char *>(a.diff_weights);
  parallel_for(d.k, threads, [&](int64_t o, int) {
    const size_t at = static_cast<size_t>(o) * row;
    kernels::transpose_avx512(weights + at, d.c, d.kh * d.kw, d.kh * d.kw, elem, to + at, d.c);
  });
  return kernels::conv2d_channel_blocks_backward_weights_name(
      d.src_type, plan.pairs, kernels::ChannelBlocksRoute::nhwc);
}

}  // namespace

core::OpResult conv2d_backward_weights(const core::Conv2dArgs &args, core::CpuIsa isa,
                                              int threads, Scratch &scratch) {
  if (isa == core::CpuIsa::avx512 && kernels::conv2d_direct_backward_weights_applies(args)) {
    const kernels::DirectBackwardWeightsPlan plan(args, threads);
    kernels::conv2d_direct_backward_weights_avx512(
        args, plan,
        scratch.get(plan.bytes, "dlk_conv2d_backward_weights",
                    "the direct kernel's sums, pixel-major diff_dst and padded image"));
    return {"avx512:conv2d_direct_backward_weights_f32", 0};
  }
  if (lowers_to_amx_gemm(args, isa) &&
      kernels::conv2d_amx_backward_weights_applies(args, threads)) {
    const kernels::AmxBackwardWeightsPlan plan(args, threads);
    kernels::conv2d_amx_backward_weights(
        args, threads, plan,
        scratch.get(plan.bytes, "dlk_conv2d_backward_weights",
                    "the AMX kernel's sums, channel-major src and paired diff_dst"));
    return {"avx512:conv2d_amx_backward_weights_bf16", 0};
  }
  if (conv2d_backward_weights_groups_apply(args, isa, threads))
    return {conv2d_backward_weights_groups(args, isa, threads, scratch), 0};
  if (isa == core::CpuIsa::avx512 && args.desc.format == DLK_FORMAT_NCHW &&
      !lowers_to_amx_gemm(args, isa) &&
      kernels::conv2d_channel_blocks_backward_weights_applies(args, threads)) {
    const kernels::ChannelBlocksBackwardWeightsPlan plan(args, threads);
    kernels::conv2d_channel_blocks_backward_weights_avx512(
        args, plan,
        scratch.get(plan.bytes, "dlk_conv2d_backward_weights",
                    "the channel-block kernel's sums, pixel-major diff_dst and padded image"));
    return {kernels::conv2d_channel_blocks_backward_weights_name(args.desc.src_type, plan.pairs), 0};
  }
  if (runs_nhwc_channel_blocks(args, isa, threads))
    return {backward_weights_nhwc(args, threads, scratch), 0};
  const char *kernel = with_float_storage(args.desc.src_type, [&](auto storage) {
    return backward_weights<decltype(storage)>(args, isa, threads, scratch);
  });
  return {std::string(is_pointwise(ConvShape(args)) ? "gemm:" : "im2col_packed_t+") + kernel, 0};
}

}  // namespace dlk::cpu
