#include "backends/fpga_sim/array_float_conv.hpp"

#include <vector>

#include "backends/fpga_sim/array_float_gemm.hpp"
#include "backends/fpga_sim/conv_lowering.hpp"
#include "backends/fpga_sim/element_io.hpp"

namespace dlk::fpga_sim {
namespace {

core::MatrixView f32_rows(const std::vector<float> &m, int64_t cols) {
  return core::MatrixView{m.data(), DLK_DTYPE_F32, cols, 1, 0};
}

}  // namespace

void array_float_conv_forward(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const ConvGeometry s(a);
  const dlk_dtype type = a.desc.src_type;
  const int64_t taps = s.taps(), fold = accumulation_fold(config, taps);
  std::vector<float> col, acc;
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t g = 0; g < s.groups; ++g) {
      im2col(s, a.src, type, i, g, col);
      // acc (pixels x kg) = col (pixels x taps) * weights^T (taps x kg)
      const core::MatrixView weights{static_cast<const char *>(a.weights) +
                                         g * s.kg * taps * static_cast<int64_t>(dlk_dtype_size(type)),
                                     type, 1, taps, 0};
      accumulate_in_array_order(f32_rows(col, taps), weights, s.pixels(), s.kg, taps, 0, fold, acc);
      for (int64_t p = 0; p < s.pixels(); ++p)
        for (int64_t kk = 0; kk < s.kg; ++kk) {
          float v = acc[static_cast<size_t>(p * s.kg + kk)];
          if (a.bias) v += a.bias[g * s.kg + kk];
          if (a.desc.relu && v < 0.0f) v = 0.0f;  // NaN passes through
          store_float(a.dst, s.dst_index(i, g, kk, p), a.desc.dst_type, v);
        }
    }
}

void array_float_conv_backward_data(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const ConvGeometry s(a);
  const dlk_dtype type = a.desc.src_type;
  const int64_t taps = s.taps(), fold = accumulation_fold(config, s.kg);
  const int64_t dst_channel = s.nhwc ? 1 : s.pixels(), dst_pixel = s.nhwc ? s.k : 1;
  const int64_t esize = static_cast<int64_t>(dlk_dtype_size(type));
  std::vector<float> col, image;
  for (int64_t i = 0; i < s.n; ++i)
    for (int64_t g = 0; g < s.groups; ++g) {
      // col (pixels x taps) = diff_dst (pixels x kg) * weights (kg x taps)
      const core::MatrixView diff_dst{static_cast<const char *>(a.diff_dst) +
                                          s.dst_index(i, g, 0, 0) * esize,
                                      type, dst_pixel, dst_channel, 0};
      const core::MatrixView weights{static_cast<const char *>(a.weights) + g * s.kg * taps * esize,
                                     type, taps, 1, 0};
      accumulate_in_array_order(diff_dst, weights, s.pixels(), taps, s.kg, 0, fold, col);
      image.assign(static_cast<size_t>(s.cg * s.h * s.w), 0.0f);
      col2im_add(s, col, image);
      for (int64_t ci = 0; ci < s.cg; ++ci)
        for (int64_t pixel = 0; pixel < s.h * s.w; ++pixel)
          store_float(a.diff_src, s.src_index(i, g, ci, pixel), type,
                      image[static_cast<size_t>(ci * s.h * s.w + pixel)]);
    }
}

void array_float_conv_backward_weights(const AcceleratorConfig &config, const core::Conv2dArgs &a) {
  const ConvGeometry s(a);
  const dlk_dtype type = a.desc.src_type;
  const int64_t taps = s.taps(), pixels = s.pixels(), rows = s.n * pixels;
  const int64_t fold = accumulation_fold(config, rows);
  std::vector<float> cols(static_cast<size_t>(rows * taps)), diff(static_cast<size_t>(s.kg * rows));
  std::vector<float> col, acc;
  for (int64_t g = 0; g < s.groups; ++g) {
    // diff_weights (kg x taps) = diff_dst^T (kg x n*pixels) * cols (n*pixels x taps)
    for (int64_t i = 0; i < s.n; ++i) {
      im2col(s, a.src, type, i, g, col);
      std::copy(col.begin(), col.end(), cols.begin() + i * pixels * taps);
      for (int64_t kk = 0; kk < s.kg; ++kk)
        for (int64_t p = 0; p < pixels; ++p)
          diff[static_cast<size_t>(kk * rows + i * pixels + p)] =
              load_float(a.diff_dst, s.dst_index(i, g, kk, p), type);
    }
    accumulate_in_array_order(f32_rows(diff, rows), f32_rows(cols, taps), s.kg, taps, rows, 0, fold,
                              acc);
    for (int64_t kk = 0; kk < s.kg; ++kk) {
      for (int64_t t = 0; t < taps; ++t)
        store_float(a.diff_weights, (g * s.kg + kk) * taps + t, type,
                    acc[static_cast<size_t>(kk * taps + t)]);
      if (a.diff_bias) {
        float sum = 0.0f;
        for (int64_t r = 0; r < rows; ++r) sum += diff[static_cast<size_t>(kk * rows + r)];
        a.diff_bias[g * s.kg + kk] = sum;
      }
    }
  }
}

}  // namespace dlk::fpga_sim
