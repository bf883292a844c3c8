// Depthwise convolution forward by the direct kernels of each tier
// (kernels/depthwise_conv2d_kernels.hpp), and the rule that picks them over
// the GEMM lowering.
//
// The kernels compute in f32. f16, bf16 and int8 run them on one image at a
// time staged in f32 in the context's scratch: src converted (int8: src -
// src_zero_point, so the padding's zero is the zero point, as dlk.h says), the
// weights converted once per call, dst produced in f32 and then stored:
// f16/bf16 rounded once (bias and ReLU applied in f32 by the kernel, as the
// GEMM's store does); int8 through the integer GEMM's own store
// (store_s32_tile: scale, bias, ReLU, requantization), after the f32 sums are
// turned back into s32. Those sums are exact: every product of a u8/s8 value
// (less its zero point) and an s8 weight is at most 255 x 128 in magnitude, so
// at most kMaxInt8Taps of them add up below 2^24, where f32 holds every integer
// and the order of the additions cannot matter; the s32 accumulation of the
// GEMM (which wraps modulo 2^32 only far beyond that) gives the same value, so
// int8 is bit-exact with the reference on every tier.
//
// NHWC with fewer input channels than a vector has lanes is staged the same
// way, transposed to NCHW (f32 included), and run by the NCHW loops: the NHWC
// loops run their lanes along the input channels, a pass per channel
// multiplier, so there most lanes would idle.
#include <algorithm>
#include <string>
#include <type_traits>

#include "backends/cpu_avx512/conv2d_lowering.hpp"
#include "backends/cpu_avx512/cpu_ops.hpp"
#include "backends/cpu_avx512/float_storage.hpp"
#include "backends/cpu_avx512/gemm_driver.hpp"
#include "backends/cpu_avx512/gemm_epilogue.hpp"
#include "backends/cpu_avx512/gemm_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_kernels.hpp"
#include "backends/cpu_avx512/kernels/conv2d_direct_rows_kernels.hpp"
#include "backends/cpu_avx512/kernels/depthwise_conv2d_kernels.hpp"
#include "backends/cpu_avx512/parallel_for.hpp"

namespace dlk::cpu {
namespace {

constexpr int64_t kMaxInt8Taps = (int64_t{1} << 24) / (255 * 128);  // 514

bool is_int8(dlk_dtype t) { return t == DLK_DTYPE_U8 || t == DLK_DTYPE_S8; }

// NHWC staged as NCHW: fewer channels than an AVX-512 register's 16 f32 lanes
// (1.4-24x as fast as the NHWC loops on 1-8 channels, Zen 5; 16 channels, the
// NHWC loops' lanes full, unchanged: docs/conv_pool_speed.md, sixth sitting).
bool staged_as_nchw(const dlk_conv2d_desc &d) { return d.format == DLK_FORMAT_NHWC && d.c < 16; }

// What a call keeps in scratch, in floats (int8 s32 sums count as floats),
// with `stagings` images staged at once (one per thread).
struct DepthwiseScratch {
  int64_t weights = 0, by_tap = 0, src = 0, dst = 0, sums = 0;
  DepthwiseScratch(const core::Conv2dArgs &a, int stagings) {
    const dlk_conv2d_desc &d = a.desc;
    const bool converted = d.src_type != DLK_DTYPE_F32, staged = converted || staged_as_nchw(d);
    const int64_t weight_count = d.k * d.kh * d.kw;
    weights = converted ? weight_count : 0;
    by_tap = d.format == DLK_FORMAT_NHWC && !staged_as_nchw(d) ? weight_count : 0;
    src = staged ? stagings * d.c * d.h * d.w : 0;
    dst = staged ? stagings * d.k * a.oh * a.ow : 0;
    sums = is_int8(d.src_type) ? stagings * d.k * a.oh * a.ow : 0;
  }
  size_t bytes() const {
    size_t total = 0;
    for (int64_t part : {weights, by_tap, src, dst, sums})
      total += ScratchCarver::aligned(static_cast<size_t>(part) * sizeof(float));
    return total;
  }
};

void run_kernel(const core::Conv2dArgs &args, const float *by_tap, core::CpuIsa isa, int threads) {
  switch (isa) {
    case core::CpuIsa::avx512: kernels::depthwise_conv2d_forward_avx512(args, by_tap, threads); break;
    case core::CpuIsa::avx2: kernels::depthwise_conv2d_forward_avx2(args, by_tap, threads); break;
    default: kernels::depthwise_conv2d_forward_generic(args, by_tap, threads);
  }
}

// f32 value of a staged element: f16/bf16 converted, int8 less the zero point.
template <class T>
float staged(T v, dlk_dtype type, int32_t zero_point) {
  if constexpr (std::is_same_v<T, float>)
    return v;
  else if constexpr (std::is_same_v<T, uint16_t>)
    return type == DLK_DTYPE_F16 ? core::f16_to_f32(v) : core::bf16_to_f32(v);
  else
    return static_cast<float>(static_cast<int32_t>(v) - zero_point);
}

template <class T>  // uint16_t (f16/bf16), int8_t or uint8_t
void convert(const T *in, int64_t count, dlk_dtype type, int32_t zero_point, float *out,
             int threads) {
  const int64_t chunks = std::max<int64_t>(1, count / 16384);
  parallel_for(chunks, threads, [&](int64_t chunk, int) {
    const int64_t e0 = count * chunk / chunks, e1 = count * (chunk + 1) / chunks;
    for (int64_t e = e0; e < e1; ++e) out[e] = staged(in[e], type, zero_point);
  });
}

// Threads that stage an image each, side by side: where the images divide
// evenly among them or are many, so that no call waits at a barrier per image
// (LeNet-5 conv1, 64 images of 6 x 28 x 28 outputs, made 4 parallel regions
// per image, each a few microseconds of work: at 2 threads on a loaded machine
// a call took 100 times as long as on 1); else 1, the images one after
// another on all threads.
int image_team(const core::Conv2dArgs &a, int threads) {
  const int team = team_size(a.desc.n, threads);
  return team > 1 && (a.desc.n % team == 0 || a.desc.n >= 4 * team) ? team : 1;
}

// One NHWC image (pixels x c) staged as NCHW (c x pixels) in f32.
template <class T>
void convert_to_nchw(const T *in, int64_t pixels, int64_t c, dlk_dtype type, int32_t zero_point,
                     float *out, int threads) {
  parallel_for(c, threads, [&](int64_t ch, int) {
    for (int64_t p = 0; p < pixels; ++p) out[ch * pixels + p] = staged(in[p * c + ch], type, zero_point);
  });
}

// The staged forward pass: image by image through the f32 kernel, `team`
// threads each staging its own images in its own part of src, dst and sums
// (else one image at a time on all threads).
template <class T>
void forward_staged(const core::Conv2dArgs &a, const float *by_tap_in, const float *weights,
                    float *src, float *dst, int32_t *sums, core::CpuIsa isa, int threads,
                    int team) {
  const dlk_conv2d_desc &d = a.desc;
  const bool int8 = is_int8(d.src_type), nchw_staged = staged_as_nchw(d);
  // The layout of the staged src and dst.
  const bool staged_nhwc = d.format == DLK_FORMAT_NHWC && !nchw_staged;
  const int64_t image_in = d.c * d.h * d.w, pixels = a.oh * a.ow, image_out = d.k * pixels;
  core::Conv2dArgs f = a;
  f.desc.n = 1;
  f.desc.src_type = f.desc.weights_type = f.desc.dst_type = DLK_DTYPE_F32;
  if (nchw_staged) f.desc.format = DLK_FORMAT_NCHW, by_tap_in = nullptr;
  f.weights = weights;
  // int8: the kernel gives the bare sums; the GEMM's store applies the rest.
  if (int8) f.bias = nullptr, f.desc.relu = 0;
  core::GemmArgs store;  // dst of one image as C (pixels x k), as forward_int8 lowers it
  if (int8) {
    const bool nhwc = d.format == DLK_FORMAT_NHWC;
    store = int8_forward_store(a, pixels, d.kh * d.kw, nhwc ? d.k : 1, nhwc ? 1 : pixels);
  }
  const size_t out_elem = dlk_dtype_size(d.dst_type);
  const kernels::S32TileStoreKernel store_s32 = gemm_kernel_set(isa).store_s32;
  const auto stage = [&](int64_t image, float *src_image, float *dst_image, int32_t *sums_image,
                         int workers) {
    const T *in = static_cast<const T *>(a.src) + image * image_in;
    if (nchw_staged)
      convert_to_nchw(in, d.h * d.w, d.c, d.src_type, d.src_zero_point, src_image, workers);
    else
      convert(in, image_in, d.src_type, d.src_zero_point, src_image, workers);
    core::Conv2dArgs staged = f;
    staged.src = src_image, staged.dst = dst_image;
    run_kernel(staged, by_tap_in, isa, workers);
    void *out = static_cast<unsigned char *>(a.dst) + image * image_out * out_elem;
    if (!int8) {
      with_float_storage(d.dst_type, [&](auto storage) {
        using Storage = decltype(storage);
        auto *o = static_cast<typename Storage::type *>(out);
        if (nchw_staged) {  // back to NHWC
          parallel_for(pixels, workers, [&](int64_t p, int) {
            nchw_pixels_to_nhwc(dst_image, d.k, pixels, p, p + 1, o, Storage::store);
          });
          return;
        }
        parallel_for(d.k, workers, [&](int64_t ch, int) {
          for (int64_t p = ch * pixels; p < (ch + 1) * pixels; ++p) o[p] = Storage::store(dst_image[p]);
        });
      });
      return;
    }
    // The sums as s32, pixels x k, then the integer store, a block of pixels per task.
    const int64_t blocks = std::max<int64_t>(1, pixels / 64);
    core::GemmArgs image_store = store;
    image_store.c = out;
    parallel_for(blocks, workers, [&](int64_t block, int) {
      const int64_t p0 = pixels * block / blocks, p1 = pixels * (block + 1) / blocks;
      for (int64_t p = p0; p < p1; ++p)
        for (int64_t ch = 0; ch < d.k; ++ch)
          sums_image[p * d.k + ch] =
              static_cast<int32_t>(staged_nhwc ? dst_image[p * d.k + ch] : dst_image[ch * pixels + p]);
      store_s32_tile(image_store, TileSpot{0, p0, 0, p1 - p0, d.k}, sums_image + p0 * d.k, d.k,
                     store_s32);
    });
  };
  if (team > 1) {
    parallel_for(d.n, team, [&](int64_t image, int thread) {
      stage(image, src + thread * image_in, dst + thread * image_out,
            int8 ? sums + thread * image_out : nullptr, 1);
    });
    return;
  }
  for (int64_t image = 0; image < d.n; ++image) stage(image, src, dst, sums, threads);
}

}  // namespace

bool depthwise_direct_applies(const core::Conv2dArgs &args, core::CpuIsa isa) {
  const dlk_conv2d_desc &d = args.desc;
  if (d.groups != d.c) return false;
  // (LeNet-5 conv1, 1 > 6 channels: 1.2-1.35x as fast direct, 1 thread.)
  if (d.c == 1 && isa == core::CpuIsa::avx512 &&
      (kernels::conv2d_direct_rows_forward_applies(args) ||
       kernels::conv2d_direct_rows_forward_nhwc_applies(args) ||
       kernels::conv2d_direct_few_channels_applies(args)))
    return false;
  if (is_int8(d.src_type) && d.kh * d.kw > kMaxInt8Taps) return false;
  // f32 NCHW and wide NHWC need no staging; the rest must fit the bound (else the GEMM).
  return DepthwiseScratch(args, 1).bytes() <= kScratchBound;
}

core::OpResult conv2d_forward_depthwise(const core::Conv2dArgs &args, core::CpuIsa isa,
                                        int threads, Scratch &scratch) {
  const dlk_conv2d_desc &d = args.desc;
  // An image staged per thread where that fits the bound, else one at a time.
  int team = image_team(args, threads);
  if (DepthwiseScratch(args, team).bytes() > kScratchBound) team = 1;
  const DepthwiseScratch plan(args, team);
  // (f32 unstaged asks for little; a carver needs some base all the same.)
  ScratchCarver carve(scratch.get(std::max<size_t>(plan.bytes(), 64), "dlk_conv2d_forward",
                                  "the depthwise staging"));
  float *weights = carve.carve<float>(plan.weights);
  float *by_tap = carve.carve<float>(plan.by_tap);
  float *src = carve.carve<float>(plan.src);
  float *dst = carve.carve<float>(plan.dst);
  int32_t *sums = carve.carve<int32_t>(plan.sums);
  const int64_t taps = d.kh * d.kw, weight_count = d.k * taps;
  // The weights in f32 (int8: s8 as they are, no zero point).
  const float *w32 = static_cast<const float *>(args.weights);
  if (plan.weights) {
    if (is_int8(d.src_type))
      convert(static_cast<const int8_t *>(args.weights), weight_count, DLK_DTYPE_S8, 0, weights,
              threads);
    else
      convert(static_cast<const uint16_t *>(args.weights), weight_count, d.src_type, 0, weights,
              threads);
    w32 = weights;
  }
  // NHWC runs over input channels: the weights (k x kh x kw, output channel
  // ci * multiplier + j) turned into kh x kw x multiplier x c, so that a tap's
  // weights are contiguous like its input pixel's channels.
  if (plan.by_tap) {
    const int64_t multiplier = d.k / d.c;
    parallel_for(taps, threads, [&](int64_t tap, int) {
      for (int64_t j = 0; j < multiplier; ++j)
        for (int64_t c = 0; c < d.c; ++c)
          by_tap[(tap * multiplier + j) * d.c + c] = w32[(c * multiplier + j) * taps + tap];
    });
  }
  const char *type = "f32";
  switch (d.src_type) {
    case DLK_DTYPE_F32:
      if (staged_as_nchw(d))
        forward_staged<float>(args, by_tap, w32, src, dst, sums, isa, threads, team);
      else
        run_kernel(args, by_tap, isa, threads);
      break;
    case DLK_DTYPE_U8:
      forward_staged<uint8_t>(args, by_tap, w32, src, dst, sums, isa, threads, team);
      type = "u8";
      break;
    case DLK_DTYPE_S8:
      forward_staged<int8_t>(args, by_tap, w32, src, dst, sums, isa, threads, team);
      type = "s8";
      break;
    default:
      forward_staged<uint16_t>(args, by_tap, w32, src, dst, sums, isa, threads, team);
      type = d.src_type == DLK_DTYPE_F16 ? "f16" : "bf16";
  }
  return {std::string(core::cpu_isa_name(isa)) +
              (staged_as_nchw(d) ? ":depthwise_direct_via_nchw_" : ":depthwise_direct_") + type,
          0};
}

}  // namespace dlk::cpu
