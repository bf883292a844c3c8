// The references checked against hand-computed results and against each other
// (the backward passes are the adjoints of the forward ones), so that a bug in
// a reference is not mistaken for one in a backend. No backend runs here.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "tests/conformance/reference_conv2d.hpp"
#include "tests/conformance/reference_gemm.hpp"
#include "tests/conformance/reference_int8.hpp"
#include "tests/conformance/reference_pool2d.hpp"

using namespace dlk::conformance;

namespace {

HostTensor tensor(dlk_dtype dtype, const std::vector<double> &values) {
  HostTensor t(dtype, static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) t.set(static_cast<int64_t>(i), values[i]);
  return t;
}

dlk_gemm_desc gemm_desc(dlk_dtype a, dlk_dtype b, dlk_dtype c, int64_t m, int64_t n, int64_t k) {
  dlk_gemm_desc d{};
  d.layout = DLK_ROW_MAJOR;
  d.m = m, d.n = n, d.k = k;
  d.a_type = a, d.b_type = b, d.c_type = c;
  d.lda = k, d.ldb = n, d.ldc = n;
  d.batch_count = 1;
  d.alpha = 1;
  return d;
}

double dot(const Expected &x, const HostTensor &y) {
  double s = 0;
  for (int64_t i = 0; i < x.size(); ++i) s += x.value[i] * y.get(i);
  return s;
}

HostTensor random_tensor(Rng &rng, int64_t elements) {
  HostTensor t(DLK_DTYPE_F32, elements);
  fill(t, rng, Fill::uniform);
  return t;
}

}  // namespace

TEST_CASE("reference gemm: layouts, transposes and leading dimensions", "[reference]") {
  // A = [1 2; 3 4], B = [5 6; 7 8], A B = [19 22; 43 50].
  dlk_gemm_desc d = gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
  const HostTensor c = tensor(DLK_DTYPE_F32, {NAN, NAN, NAN, NAN});
  Expected e = reference_gemm(d, tensor(DLK_DTYPE_F32, {1, 2, 3, 4}), tensor(DLK_DTYPE_F32, {5, 6, 7, 8}), c);
  CHECK(e.value == std::vector<double>{19, 22, 43, 50});

  // The same product with A stored transposed and column-major B, C padded to ldc 3.
  d.trans_a = DLK_TRANSPOSE;
  d.layout = DLK_COL_MAJOR;
  d.ldc = 3;
  // Column-major op(A) = A means stored A^T column-major = A row-major: {1, 2, 3, 4};
  // B column-major: {5, 7, 6, 8}. C column-major with ldc 3: columns at 0 and 3.
  const HostTensor c_padded = tensor(DLK_DTYPE_F32, {9, 9, -1, 9, 9});
  e = reference_gemm(d, tensor(DLK_DTYPE_F32, {1, 2, 3, 4}), tensor(DLK_DTYPE_F32, {5, 7, 6, 8}), c_padded);
  CHECK(e.value == std::vector<double>{19, 43, -1, 22, 50});
  CHECK(e.bound[2] == 0);  // the gap must keep its value
  CHECK(gemm_c_name(d, 3) == "b=0 i=0 j=1");
  CHECK(gemm_c_name(d, 2) == "offset 2, outside the matrices");
}

TEST_CASE("reference gemm: alpha, beta, batches sharing A, k == 0", "[reference]") {
  dlk_gemm_desc d = gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 1, 1, 2);
  d.batch_count = 2;
  d.stride_a = 0, d.stride_b = 2, d.stride_c = 1;
  d.alpha = 2, d.beta = 0.5f;
  // C_b = 2 (1 2) . B_b + 0.5 C_b
  const Expected e = reference_gemm(d, tensor(DLK_DTYPE_F32, {1, 2}), tensor(DLK_DTYPE_F32, {3, 4, 5, 6}),
                                    tensor(DLK_DTYPE_F32, {10, 20}));
  CHECK(e.value == std::vector<double>{2 * 11 + 5, 2 * 17 + 10});
  // The bound grows with k and the magnitudes: (k + 2) * 2^-23 * (|alpha| sum |a b| + |beta c|).
  CHECK(e.bound[0] == Approx(4 * 0x1.0p-23 * 27).epsilon(1e-6));

  d = gemm_desc(DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F16, 1, 2, 0);
  d.beta = -2;
  const Expected k0 = reference_gemm(d, HostTensor(DLK_DTYPE_F16, 0), HostTensor(DLK_DTYPE_F16, 0),
                                     tensor(DLK_DTYPE_F16, {1.5, -0.25}));
  CHECK(k0.value == std::vector<double>{-3, 0.5});
}

TEST_CASE("reference gemm: f16 output allows half an ulp of rounding", "[reference]") {
  // 1 + 2^-11 lies halfway between two f16 values: either neighbour is within
  // the bound, anything further is not.
  dlk_gemm_desc d = gemm_desc(DLK_DTYPE_F16, DLK_DTYPE_F16, DLK_DTYPE_F16, 1, 1, 2);
  const Expected e = reference_gemm(d, tensor(DLK_DTYPE_F16, {1, 0x1.0p-11}), tensor(DLK_DTYPE_F16, {1, 1}),
                                    tensor(DLK_DTYPE_F16, {0}));
  CHECK(e.value[0] == 1 + 0x1.0p-11);
  const auto name = [](int64_t) { return std::string("c"); };
  CHECK(compare(tensor(DLK_DTYPE_F16, {1}), e, name).mismatches == 0);
  CHECK(compare(tensor(DLK_DTYPE_F16, {1 + 0x1.0p-10}), e, name).mismatches == 0);
  CHECK(compare(tensor(DLK_DTYPE_F16, {1 + 0x1.0p-9}), e, name).mismatches == 1);
  CHECK(compare(tensor(DLK_DTYPE_F16, {NAN}), e, name).mismatches == 1);
}

TEST_CASE("reference gemm: int8 zero points, wrapping, scales, requantization", "[reference]") {
  // (130 - 128) * 3 + (120 - 128) * -5 = 46
  dlk_gemm_desc d = gemm_desc(DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, 1, 1, 2);
  d.a_zero_point = 128;
  const HostTensor a = tensor(DLK_DTYPE_U8, {130, 120}), b = tensor(DLK_DTYPE_S8, {3, -5});
  CHECK(reference_gemm(d, a, b, tensor(DLK_DTYPE_S32, {7})).value[0] == 46);
  d.beta = 1;  // C + acc wraps modulo 2^32
  CHECK(reference_gemm(d, a, b, tensor(DLK_DTYPE_S32, {INT32_MAX})).value[0] == INT32_MIN + 45);

  // f32: fmaf(beta, C, (float)acc * (alpha * scale_j))
  d.c_type = DLK_DTYPE_F32;
  d.alpha = 0.5f, d.beta = -1;
  const float scales[] = {0.25f};
  d.scale_mode = DLK_SCALE_PER_TENSOR;
  d.scales = scales;
  CHECK(reference_gemm(d, a, b, tensor(DLK_DTYPE_F32, {1})).value[0] == 46 * 0.125 - 1);

  // s8: 46 * 0.125 = 5.75 - (3 - 1) * 0.5 ... v = fmaf(0.5, 3 - 1, 5.75) = 6.75 -> 7, + zp 1 = 8
  d.c_type = DLK_DTYPE_S8;
  d.beta = 0.5f;
  d.c_zero_point = 1;
  CHECK(reference_gemm(d, a, b, tensor(DLK_DTYPE_S8, {3})).value[0] == 8);
  // beta == 0: C is not read; 5.75 -> 6 + 1
  d.beta = 0;
  CHECK(reference_gemm(d, a, b, tensor(DLK_DTYPE_S8, {-100})).value[0] == 7);
}

TEST_CASE("reference requantization rounds half to even and saturates", "[reference]") {
  CHECK(requantize(2.5, 0, DLK_DTYPE_S8) == 2);
  CHECK(requantize(3.5, 0, DLK_DTYPE_S8) == 4);
  CHECK(requantize(-2.5, 0, DLK_DTYPE_S8) == -2);
  CHECK(requantize(-2.5, 10, DLK_DTYPE_U8) == 8);
  CHECK(requantize(200, 0, DLK_DTYPE_S8) == 127);
  CHECK(requantize(-129, 0, DLK_DTYPE_S8) == -128);
  CHECK(requantize(-3, 0, DLK_DTYPE_U8) == 0);
  CHECK(requantize(250, 10, DLK_DTYPE_U8) == 255);
  CHECK(requantize(NAN, 5, DLK_DTYPE_U8) == 5);
  CHECK(wrap_to_s32(int64_t{1} << 32) == 0);
  CHECK(wrap_to_s32((int64_t{1} << 31) + 5) == INT32_MIN + 5);
}

TEST_CASE("reference conv2d forward: padding, stride, groups, NHWC, int8", "[reference]") {
  // 3x3 image 1..9, 2x2 kernel of ones.
  dlk_conv2d_desc d{};
  d.format = DLK_FORMAT_NCHW;
  d.n = 1, d.c = 1, d.h = 3, d.w = 3, d.k = 1, d.kh = 2, d.kw = 2;
  d.stride_h = d.stride_w = d.dilation_h = d.dilation_w = d.groups = 1;
  d.src_type = d.weights_type = d.dst_type = DLK_DTYPE_F32;
  const HostTensor image = tensor(DLK_DTYPE_F32, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  const HostTensor ones = tensor(DLK_DTYPE_F32, {1, 1, 1, 1});
  CHECK(reference_conv2d_forward(d, image, ones, {}).value == std::vector<double>{12, 16, 24, 28});
  // Padding 1, stride 2: windows at (-1,-1), (-1,1), (1,-1), (1,1); bias -10 and ReLU.
  d.pad_h = d.pad_w = 1, d.stride_h = d.stride_w = 2, d.relu = 1;
  CHECK(reference_conv2d_forward(d, image, ones, {-10}).value == std::vector<double>{0, 0, 1, 18});

  // Two groups, NHWC: channel 0 of src feeds output 0 only, channel 1 output 1 only.
  dlk_conv2d_desc g = d;
  g.format = DLK_FORMAT_NHWC;
  g.c = 2, g.k = 2, g.groups = 2, g.h = 1, g.w = 2, g.kh = 1, g.kw = 2;
  g.pad_h = g.pad_w = 0, g.stride_h = g.stride_w = 1, g.relu = 0;
  // src (y=0, x, c): x0 = {1, 10}, x1 = {2, 20}; weights k0 = {1, 1}, k1 = {1, -1}.
  CHECK(reference_conv2d_forward(g, tensor(DLK_DTYPE_F32, {1, 10, 2, 20}), tensor(DLK_DTYPE_F32, {1, 1, 1, -1}), {})
            .value == std::vector<double>{3, -10});

  // int8: (src - zp) * w summed, padding adds nothing, v = acc * scale + bias, ReLU, requantize.
  dlk_conv2d_desc q = d;
  q.src_type = DLK_DTYPE_U8, q.weights_type = DLK_DTYPE_S8, q.dst_type = DLK_DTYPE_S8;
  q.src_zero_point = 5, q.dst_zero_point = -3, q.relu = 0;
  const float scales[] = {0.5f};
  q.scale_mode = DLK_SCALE_PER_TENSOR;
  q.scales = scales;
  // Window (1,1) covers 5 6 8 9 -> (0 + 1 + 3 + 4) * 0.5 = 4 + bias 0.5 = 4.5 -> 4, - 3 = 1;
  // window (-1,-1) covers 1 -> -4 * 0.5 + 0.5 = -1.5 -> -2 - 3 = -5.
  const Expected e = reference_conv2d_forward(q, tensor(DLK_DTYPE_U8, {1, 2, 3, 4, 5, 6, 7, 8, 9}),
                                              tensor(DLK_DTYPE_S8, {1, 1, 1, 1}), {0.5f});
  CHECK(e.value[3] == 1);
  CHECK(e.value[0] == -5);
  CHECK(e.bound[0] == 0);
}

TEST_CASE("reference conv2d backward passes are the adjoints of the forward pass", "[reference]") {
  // <conv(x, w), y> = <x, backward_data(y, w)> = <w, backward_weights(x, y)>, for
  // a geometry with stride, padding, dilation and groups, in both formats.
  for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
    dlk_conv2d_desc d{};
    d.format = format;
    d.n = 2, d.c = 4, d.h = 7, d.w = 6, d.k = 6, d.kh = 3, d.kw = 2;
    d.stride_h = 2, d.stride_w = 1, d.pad_h = 2, d.pad_w = 1, d.dilation_h = 1, d.dilation_w = 2;
    d.groups = 2;
    d.src_type = d.weights_type = d.dst_type = DLK_DTYPE_F32;
    const ConvGeometry g(d);
    Rng rng(7);
    const HostTensor x = random_tensor(rng, g.src_elements(d)), w = random_tensor(rng, g.weights_elements(d)),
                     y = random_tensor(rng, g.dst_elements(d));
    const double forward = dot(reference_conv2d_forward(d, x, w, {}), y);
    CHECK(dot(reference_conv2d_backward_data(d, y, w), x) == Approx(forward).epsilon(1e-12));
    const ConvWeightGradients grads = reference_conv2d_backward_weights(d, x, y);
    CHECK(dot(grads.diff_weights, w) == Approx(forward).epsilon(1e-12));
    // diff_bias is the sum of diff_dst per output channel: the adjoint of adding a bias.
    const std::vector<float> bias = {1, 0, 0, 0, 0, 0};
    CHECK(dot(reference_conv2d_forward(d, x, w, bias), y) - forward == Approx(grads.diff_bias.value[0]).epsilon(1e-9));
  }
}

TEST_CASE("reference pool2d: max with ties, averages with padding, int8 rounding", "[reference]") {
  dlk_pool2d_desc d{};
  d.format = DLK_FORMAT_NCHW;
  d.kind = DLK_POOL_MAX;
  d.n = 1, d.c = 1, d.h = 2, d.w = 3, d.kh = 2, d.kw = 2, d.stride_h = 1, d.stride_w = 1;
  d.dtype = DLK_DTYPE_F32;
  // Window (0,0) covers 5 1 / 5 2: the first 5 (index 0) wins; window (0,1) covers 1 7 / 2 7 -> index 2.
  const HostTensor src = tensor(DLK_DTYPE_F32, {5, 1, 7, 5, 2, 7});
  const PoolForward max = reference_pool2d_forward(d, src);
  CHECK(max.dst.value == std::vector<double>{5, 7});
  CHECK(max.argmax.value == std::vector<double>{0, 2});

  // Padding 1 with a 2x2 window, stride 2: windows hold 5 | 1 7 | 5 | 2 7.
  d.pad_h = d.pad_w = 1, d.stride_h = d.stride_w = 2;
  d.kind = DLK_POOL_AVG_EXCLUDE_PADDING;
  CHECK(reference_pool2d_forward(d, src).dst.value == std::vector<double>{5, 4, 5, 4.5});
  d.kind = DLK_POOL_AVG_INCLUDE_PADDING;
  CHECK(reference_pool2d_forward(d, src).dst.value == std::vector<double>{1.25, 2, 1.25, 2.25});

  // s8 averages round half to even: (1 + 2) / 2 = 1.5 -> 2, (-1 - 2) / 2 -> -2, (0 + 1) / 2 -> 0.
  dlk_pool2d_desc q{};
  q.format = DLK_FORMAT_NHWC;
  q.kind = DLK_POOL_AVG_EXCLUDE_PADDING;
  q.n = 1, q.c = 3, q.h = 1, q.w = 2, q.kh = 1, q.kw = 2, q.stride_h = 1, q.stride_w = 2;
  q.dtype = DLK_DTYPE_S8;
  const Expected avg = reference_pool2d_forward(q, tensor(DLK_DTYPE_S8, {1, -1, 0, 2, -2, 1})).dst;
  CHECK(avg.value == std::vector<double>{2, -2, 0});
  CHECK(avg.bound == std::vector<double>{0, 0, 0});
}

TEST_CASE("reference pool2d backward is the adjoint of the forward pass", "[reference]") {
  for (dlk_pool_kind kind : {DLK_POOL_MAX, DLK_POOL_AVG_INCLUDE_PADDING, DLK_POOL_AVG_EXCLUDE_PADDING})
    for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
      dlk_pool2d_desc d{};
      d.format = format;
      d.kind = kind;
      d.n = 2, d.c = 3, d.h = 7, d.w = 8, d.kh = 3, d.kw = 2, d.stride_h = 2, d.stride_w = 1;
      d.pad_h = 1, d.pad_w = 1;
      d.dtype = DLK_DTYPE_F32;
      const PoolGeometry g(d);
      Rng rng(11);
      const HostTensor x = random_tensor(rng, g.src_elements(d)), y = random_tensor(rng, g.dst_elements(d));
      const PoolForward forward = reference_pool2d_forward(d, x);
      // Max pooling is linear once the argmax is fixed: gather forward, scatter back.
      CHECK(dot(reference_pool2d_backward(d, y, forward.indices), x) ==
            Approx(dot(forward.dst, y)).epsilon(1e-12));
    }
}
