#include "backends/cpu_avx512/conv2d_backward_data_amx_phases.hpp"

#include <algorithm>
#include <cstring>

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/kernels/transpose_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

constexpr int64_t kElem = 2;  // bf16
// The images padded, the phases' images and NCHW's interleaved image of one
// pass over the batch stay within this many bytes (beside the kernel's own
// workspaces).
constexpr size_t kPassBytes = size_t{32} << 20;

// Phase p (2 py + px) as a forward convolution of n images of the padded
// diff_dst `src` into the compact NHWC image `dst`, weights prepacked.
core::Conv2dArgs amx_phase(const DataPhases &phases, const core::Conv2dArgs &a, int p, int64_t n,
                           const void *src, void *dst) {
  const int py = p / 2, px = p % 2;
  core::Conv2dArgs t;
  t.desc = a.desc;
  t.desc.format = DLK_FORMAT_NHWC;
  t.desc.n = n;
  t.desc.c = a.desc.k, t.desc.k = a.desc.c;
  t.desc.h = phases.rows.padded, t.desc.w = phases.cols.padded;
  t.desc.kh = phases.rows.taps[py], t.desc.kw = phases.cols.taps[px];
  t.desc.stride_h = t.desc.stride_w = 1;
  t.desc.pad_h = t.desc.pad_w = 0;
  t.desc.relu = 0;
  t.c_per_group = a.desc.k, t.k_per_group = a.desc.c;
  t.oh = phases.rows.outputs[py], t.ow = phases.cols.outputs[px];
  t.src = src, t.dst = dst;
  return t;
}

// How the batch goes through: `chunk` images a pass, and the bytes of a
// pass's scratch (the kernel's workspaces after the images; before them,
// packed per call, the panels and NCHW's KRSC stage).
struct PhasesPlan {
  PhasesPlan(const core::Conv2dArgs &args, const DataPhases &phases, int threads,
             bool prepacked) {
    const ConvShape s(args);
    if (!prepacked) {
      const AmxPhasePanels packing(args, threads);
      panels = packing.bytes(), stage = packing.stage_bytes();
    }
    // As backward_data_amx_phases carves them.
    const auto image_bytes = [&](int64_t n) {
      const auto bytes_of = [](int64_t elems) {
        return ScratchCarver::aligned(static_cast<size_t>(elems * kElem));
      };
      size_t bytes = bytes_of(n * phases.rows.padded * phases.cols.padded * s.k);
      for (int p = 0; p < 4; ++p)
        bytes += bytes_of(n * phases.rows.outputs[p / 2] * phases.cols.outputs[p % 2] * s.c);
      return bytes + bytes_of(s.nhwc ? 0 : n * s.h * s.w * s.c);
    };
    chunk = s.n;
    while (chunk > 1 && image_bytes(chunk) > kPassBytes) chunk = (chunk + 1) / 2;
    images = image_bytes(chunk);
    for (int p = 0; p < 4; ++p) {
      const kernels::AmxConvPlan phase(amx_phase(phases, args, p, chunk, nullptr, nullptr),
                                       threads);
      kernel = std::max(kernel, phase.bytes - phase.weights_bytes);
    }
  }
  size_t bytes() const { return panels + stage + images + kernel; }
  int64_t chunk = 1;
  size_t panels = 0, stage = 0, images = 0, kernel = 0;
};

}  // namespace

bool backward_data_amx_phases_apply(const core::Conv2dArgs &a, core::CpuIsa isa, int threads,
                                    bool prepacked) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.src_type != DLK_DTYPE_BF16 || d.groups != 1 || !lowers_to_amx_gemm(a, isa) ||
      d.k % 32 != 0 || d.n == 0)
    return false;
  // Packed per call, the panels weigh as the stride-1 turned convolution's
  // do (AmxWeights::turned): half as many pixels of diff_src as its channels.
  if (!prepacked && 2 * d.n * d.h * d.w < d.c) return false;
  const DataPhases phases(a);
  return phases.valid && PhasesPlan(a, phases, threads, prepacked).bytes() <= kScratchBound;
}

AmxPhasePanels::AmxPhasePanels(const core::Conv2dArgs &a, int threads) : phases_(a) {
  const dlk_conv2d_desc &d = a.desc;
  if (d.format == DLK_FORMAT_NCHW)
    stage_bytes_ = ScratchCarver::aligned(static_cast<size_t>(d.k * a.c_per_group * d.kh * d.kw *
                                                              kElem));
  for (int p = 0; p < 4; ++p) {
    elems_[p] =
        kernels::AmxConvPlan(amx_phase(phases_, a, p, a.desc.n, nullptr, nullptr), threads)
            .weight_elems;
    bytes_ += ScratchCarver::aligned(static_cast<size_t>(elems_[p] * kElem));
  }
}

void AmxPhasePanels::pack(const core::Conv2dArgs &a, int threads, void *panels, void *stage,
                          std::array<kernels::AmxConvWeights, 4> &phases) const {
  // NCHW's weights turned into KRSC once for the four phases.
  core::Conv2dArgs krsc = a;
  krsc.weights = kernels::conv2d_amx_weights_krsc(a, threads, stage);
  krsc.desc.format = DLK_FORMAT_NHWC;
  ScratchCarver carve(panels);
  for (int p = 0; p < 4; ++p) {
    const kernels::AmxConvPlan plan(amx_phase(phases_, a, p, a.desc.n, nullptr, nullptr),
                                    threads);
    void *out = carve.carve<uint16_t>(elems_[p]);
    kernels::conv2d_amx_pack_turned_weights(krsc, threads, plan, phases_.source_taps(a, p), out,
                                            nullptr);
    phases[p] = {out, nullptr};
  }
}

void backward_data_amx_phases(const core::Conv2dArgs &a, int threads, Scratch &scratch,
                              const kernels::AmxConvWeights *prepacked) {
  const ConvShape s(a);
  const DataPhases phases(a);
  const PhasesPlan plan(a, phases, threads, prepacked != nullptr);
  ScratchCarver carve(scratch.get(plan.bytes(), "dlk_conv2d_backward_data",
                                  "the phases' panels, the padded diff_dst, the phases' images "
                                  "and workspaces"));
  std::array<kernels::AmxConvWeights, 4> packed{};
  const kernels::AmxConvWeights *panels = prepacked;
  if (!prepacked) {
    void *to = carve.carve<unsigned char>(static_cast<int64_t>(plan.panels));
    void *stage = carve.carve<unsigned char>(static_cast<int64_t>(plan.stage));
    AmxPhasePanels(a, threads).pack(a, threads, to, stage, packed);
    panels = packed.data();
  }
  const int64_t hp = phases.rows.padded, wp = phases.cols.padded;
  auto *padded = carve.carve<uint16_t>(plan.chunk * hp * wp * s.k);
  std::array<uint16_t *, 4> out{};
  for (int p = 0; p < 4; ++p)
    out[p] = carve.carve<uint16_t>(plan.chunk * phases.rows.outputs[p / 2] *
                                   phases.cols.outputs[p % 2] * s.c);
  auto *nhwc = carve.carve<uint16_t>(s.nhwc ? 0 : plan.chunk * s.h * s.w * s.c);
  void *workspaces = carve.carve<unsigned char>(static_cast<int64_t>(plan.kernel));
  const auto *diff_dst = static_cast<const uint16_t *>(a.diff_dst);
  auto *diff_src = static_cast<uint16_t *>(a.diff_src);
  const int64_t pixels = s.h * s.w, out_pixels = s.oh * s.ow;
  // diff_dst's columns [x0, x1) land in the padded rows from column x0 - offset.
  const int64_t x0 = std::max<int64_t>(0, phases.cols.offset);
  const int64_t x1 = std::min(s.ow, wp + phases.cols.offset);
  for (int64_t first = 0; first < s.n; first += plan.chunk) {
    const int64_t count = std::min(plan.chunk, s.n - first);
    parallel_for(count * hp, threads, [&](int64_t item, int) {
      const int64_t image = first + item / hp, oy = item % hp + phases.rows.offset;
      uint16_t *row = padded + item * wp * s.k;
      if (oy < 0 || oy >= s.oh || x1 <= x0) {
        std::fill_n(row, wp * s.k, uint16_t{0});
        return;
      }
      const int64_t left = x0 - phases.cols.offset, right = x1 - phases.cols.offset;
      std::fill_n(row, left * s.k, uint16_t{0});
      std::fill(row + right * s.k, row + wp * s.k, uint16_t{0});
      if (s.nhwc)
        std::memcpy(row + left * s.k, diff_dst + ((image * s.oh + oy) * s.ow + x0) * s.k,
                    static_cast<size_t>((x1 - x0) * s.k * kElem));
      else
        kernels::transpose_avx512(diff_dst + image * s.k * out_pixels + oy * s.ow + x0, s.k,
                                  x1 - x0, out_pixels, sizeof(uint16_t), row + left * s.k, s.k);
    });
    for (int p = 0; p < 4; ++p) {
      const core::Conv2dArgs t = amx_phase(phases, a, p, count, padded, out[p]);
      kernels::conv2d_amx_forward(t, threads, kernels::AmxConvPlan(t, threads), workspaces,
                                  &panels[p]);
    }
    // Each row of diff_src (NCHW: of its NHWC image) from its parity's two phases.
    parallel_for(count * s.h, threads, [&](int64_t item, int) {
      const int64_t image = item / s.h, y = item % s.h, py = y % 2, i = y / 2;
      uint16_t *row = (s.nhwc ? diff_src + first * pixels * s.c : nhwc) + item * s.w * s.c;
      const uint16_t *from[2];
      for (int px = 0; px < 2; ++px) {
        const int64_t width = phases.cols.outputs[px];
        from[px] = out[2 * py + px] + ((image * phases.rows.outputs[py] + i) * width) * s.c;
      }
      for (int64_t x = 0; x < s.w; ++x)
        std::memcpy(row + x * s.c, from[x % 2] + x / 2 * s.c, static_cast<size_t>(s.c * kElem));
    });
    if (s.nhwc) continue;
    // The NHWC images into NCHW diff_src, in runs of 64 pixels.
    const int64_t runs = (pixels + 63) / 64;
    parallel_for(count * runs, threads, [&](int64_t item, int) {
      const int64_t image = item / runs, from = item % runs * 64;
      kernels::transpose_avx512(nhwc + (image * pixels + from) * s.c,
                                std::min<int64_t>(64, pixels - from), s.c, s.c,
                                sizeof(uint16_t),
                                diff_src + (first + image) * s.c * pixels + from, pixels);
    });
  }
}

}  // namespace dlk::cpu
