// A tiny forward and backward pass of conv2d (3x3, pad 1, bias, ReLU) and 2x2
// max pooling through the C++ wrapper; errors arrive as dlk::Error.
#include <cstdio>
#include <vector>

#include <dlk/dlk.hpp>

int main() try {
  dlk::Context ctx;  // DLK_BACKEND, else auto
  dlk_conv2d_desc conv = dlk::conv2d_desc(DLK_DTYPE_F32, 2, 3, 8, 8, 4, 3, 3);
  conv.pad_h = conv.pad_w = 1;
  conv.relu = 1;
  const auto [oh, ow] = dlk::output_shape(conv);

  std::vector<float> src(2 * 3 * 8 * 8), weights(4 * 3 * 3 * 3), bias(4, 0.1f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 7) - 3.0f;
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<float>(i % 5) * 0.1f - 0.2f;

  dlk::Buffer<float> d_src(ctx, src.size()), d_wei(ctx, weights.size()), d_bias(ctx, bias.size());
  dlk::Buffer<float> d_dst(ctx, static_cast<size_t>(2 * 4 * oh * ow));
  d_src.upload(src.data());
  d_wei.upload(weights.data());
  d_bias.upload(bias.data());
  ctx.conv2d_forward(conv, d_src.get(), d_wei.get(), d_bias.get(), d_dst.get());

  conv.relu = 0;  // the backward pass takes diff_dst with ReLU's mask already applied
  dlk::Buffer<float> d_diff_wei(ctx, weights.size()), d_diff_bias(ctx, bias.size());
  ctx.conv2d_backward_weights(conv, d_src.get(), d_dst.get(), d_diff_wei.get(), d_diff_bias.get());

  const dlk_pool2d_desc pool = dlk::pool2d_desc(DLK_POOL_MAX, DLK_DTYPE_F32, 2, 4, oh, ow, 2, 2);
  const auto [ph, pw] = dlk::output_shape(pool);
  dlk::Buffer<float> d_pooled(ctx, static_cast<size_t>(2 * 4 * ph * pw));
  dlk::Buffer<int32_t> d_argmax(ctx, d_pooled.size());
  ctx.pool2d_forward(pool, d_dst.get(), d_pooled.get(), d_argmax.get());

  std::vector<float> pooled(d_pooled.size());
  d_pooled.download(pooled.data());
  std::printf("conv %lldx%lld -> pool %lldx%lld, first value %g, last op took %.3f ms\n",
              static_cast<long long>(oh), static_cast<long long>(ow), static_cast<long long>(ph),
              static_cast<long long>(pw), pooled[0], ctx.last_op().seconds * 1e3);
  return 0;
} catch (const dlk::Error &e) {
  std::fprintf(stderr, "dlk error (%s): %s\n", dlk_status_name(e.status()), e.what());
  return 1;
}
