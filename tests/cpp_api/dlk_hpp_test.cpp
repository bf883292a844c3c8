// The C++ wrapper: RAII ownership, errors as dlk::Error, and a round trip of a
// real op through it.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "dlk/dlk.hpp"

TEST_CASE("dlk::Context creates the backend it is asked for", "[cpp_api]") {
  dlk::Context ctx("cpu");
  const dlk_context_info info = ctx.info();
  CHECK(std::string(info.backend) == "cpu");
  CHECK(info.num_threads >= 1);
  CHECK(ctx.supports(DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32));
}

TEST_CASE("dlk::Error carries the status and the message", "[cpp_api]") {
  try {
    dlk::Context ctx("no_such_backend");
    FAIL("expected dlk::Error");
  } catch (const dlk::Error &e) {
    CHECK(e.status() == DLK_STATUS_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("options->backend") != std::string::npos);
  }
  dlk::Context ctx("cpu");
  dlk_gemm_desc desc = dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 2);
  desc.lda = 1;
  float a[4] = {}, b[4] = {}, c[4] = {};
  CHECK_THROWS_MATCHES(ctx.gemm(desc, a, b, c), dlk::Error,
                       Catch::Matchers::Predicate<dlk::Error>([](const dlk::Error &e) {
                         return e.status() == DLK_STATUS_INVALID_ARGUMENT &&
                                std::string(e.what()).find("'lda'") != std::string::npos;
                       }));
}

TEST_CASE("dlk::Buffer round-trips a GEMM through device memory", "[cpp_api]") {
  dlk::Context ctx("cpu");
  const std::vector<float> a = {1, 2, 3, 4, 5, 6};     // 2 x 3
  const std::vector<float> b = {1, 0, 0, 1, 1, 1};     // 3 x 2
  dlk::Buffer<float> da(ctx, a.size()), db(ctx, b.size()), dc(ctx, 4);
  da.upload(a.data());
  db.upload(b.data());
  ctx.gemm(dlk::gemm_desc(DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 2, 2, 3), da.get(),
           db.get(), dc.get());
  std::vector<float> c(4);
  dc.download(c.data());
  CHECK(c == std::vector<float>{4, 5, 10, 11});
  const dlk_op_record record = ctx.last_op();
  CHECK(record.op == DLK_OP_GEMM);
  CHECK(record.flops == 2.0 * 2 * 2 * 3);

  dlk::Buffer<float> moved = std::move(dc);
  CHECK(moved.size() == 4);
  CHECK(dc.get() == nullptr);
}

TEST_CASE("dlk::output_shape follows the descriptor", "[cpp_api]") {
  dlk_conv2d_desc conv = dlk::conv2d_desc(DLK_DTYPE_F32, 1, 3, 32, 32, 8, 3, 3);
  conv.pad_h = conv.pad_w = 1;
  conv.stride_h = conv.stride_w = 2;
  CHECK(dlk::output_shape(conv) == std::make_pair<int64_t, int64_t>(16, 16));
  const dlk_pool2d_desc pool = dlk::pool2d_desc(DLK_POOL_MAX, DLK_DTYPE_F32, 1, 3, 7, 9, 2, 2);
  CHECK(dlk::output_shape(pool) == std::make_pair<int64_t, int64_t>(3, 4));
}

TEST_CASE("dlk::Conv2dWeights packs once and frees its handle", "[cpp_api]") {
  dlk::Context ctx("cpu");
  // 1 x 2 x 3 x 3 src, two 2 x 2 x 2 filters of ones: each output is its window's sum.
  const dlk_conv2d_desc d = dlk::conv2d_desc(DLK_DTYPE_F32, 1, 2, 3, 3, 2, 2, 2);
  std::vector<float> src(18), weights(16, 1.0f), dst(8, -1.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i);
  dlk::Conv2dWeights packed(ctx, d, weights.data());
  weights.assign(16, 0.0f);  // the handle keeps its own copy
  ctx.conv2d_forward_packed(d, src.data(), packed.get(), nullptr, dst.data());
  CHECK(dst == std::vector<float>{52, 60, 76, 84, 52, 60, 76, 84});
  dlk::Conv2dWeights moved = std::move(packed);
  CHECK(packed.get() == nullptr);
  // A moved-from object frees nothing; the context refuses a handle already freed.
  dlk_conv2d_weights_t handle = moved.get();
  moved = dlk::Conv2dWeights();
  CHECK(dlk_conv2d_forward_packed(ctx.get(), &d, src.data(), handle, nullptr, dst.data()) ==
        DLK_STATUS_INVALID_ARGUMENT);
}

TEST_CASE("dlk::Conv2dWeights packs for backward data when asked", "[cpp_api]") {
  dlk::Context ctx("cpu");
  // diff_dst 1 x 1 x 2 x 2 of ones through one 1 x 2 x 2 filter of ones: each
  // input pixel's gradient is the number of windows that hold it.
  const dlk_conv2d_desc d = dlk::conv2d_desc(DLK_DTYPE_F32, 1, 1, 3, 3, 1, 2, 2);
  const std::vector<float> diff_dst(4, 1.0f), weights(4, 1.0f);
  std::vector<float> diff_src(9, -1.0f);
  const dlk::Conv2dWeights both(ctx, d, weights.data(),
                                DLK_CONV2D_PASS_FORWARD | DLK_CONV2D_PASS_BACKWARD_DATA);
  ctx.conv2d_backward_data_packed(d, diff_dst.data(), both.get(), diff_src.data());
  CHECK(diff_src == std::vector<float>{1, 2, 1, 2, 4, 2, 1, 2, 1});
  const dlk::Conv2dWeights forward(ctx, d, weights.data());
  CHECK_THROWS_AS(
      ctx.conv2d_backward_data_packed(d, diff_dst.data(), forward.get(), diff_src.data()),
      dlk::Error);
}
