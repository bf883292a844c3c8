// The cuda backend's convolutions give the same bits every time (docs/cuda.md): each pass run
// twice on one context and once more on a second context (which chooses its cuDNN algorithms
// afresh, as a new process or a resumed training run does) must write identical bytes. Shapes
// where cuDNN's fastest backward algorithms add partial sums with atomics: LeNet-5's layers
// (dlk-train's model) and a ResNet-50 3x3 layer, f32 and bf16, NCHW and NHWC. Every case skips,
// saying why, where no cuda context can be created.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda_context.hpp"
#include "dlk/dlk.h"

namespace {

using dlk::cuda_test::CudaContext;

struct Shape {
  const char *name;
  int64_t n, c, h, w, k, kh, kw;
  int pad, stride;
};

constexpr Shape kShapes[] = {
    {"lenet5 conv1", 64, 1, 28, 28, 6, 5, 5, 2, 1},
    {"lenet5 conv2", 64, 6, 14, 14, 16, 5, 5, 0, 1},
    {"resnet50 res2a_3x3", 8, 64, 56, 56, 64, 3, 3, 1, 1},
};

// A device buffer of `bytes`, freed with the object.
class DeviceBuffer {
 public:
  DeviceBuffer(dlk_context_t context, size_t bytes) : context_(context), bytes_(bytes) {
    REQUIRE(dlk_malloc(context, bytes, &ptr_) == DLK_STATUS_SUCCESS);
  }
  ~DeviceBuffer() { dlk_free(context_, ptr_); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  void *get() const { return ptr_; }
  void upload(const std::vector<uint8_t> &host) {
    REQUIRE(host.size() == bytes_);
    REQUIRE(dlk_memcpy(context_, ptr_, host.data(), bytes_, DLK_COPY_HOST_TO_DEVICE) == DLK_STATUS_SUCCESS);
  }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> out(bytes_);
    REQUIRE(dlk_memcpy(context_, out.data(), ptr_, bytes_, DLK_COPY_DEVICE_TO_HOST) == DLK_STATUS_SUCCESS);
    return out;
  }

 private:
  dlk_context_t context_;
  size_t bytes_;
  void *ptr_ = nullptr;
};

// `count` random values in [-1, 1) as the bytes of `type` (f32 or bf16, rounded by truncation:
// any bits do, the test compares runs with each other).
std::vector<uint8_t> random_bytes(size_t count, dlk_dtype type, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  const size_t element = type == DLK_DTYPE_F32 ? 4 : 2;
  std::vector<uint8_t> out(count * element);
  for (size_t i = 0; i < count; ++i) {
    const float v = dist(rng);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (element == 4)
      std::memcpy(&out[i * 4], &bits, 4);
    else {
      const uint16_t high = static_cast<uint16_t>(bits >> 16);
      std::memcpy(&out[i * 2], &high, 2);
    }
  }
  return out;
}

// Where two results first differ, for the failure message.
std::string first_difference(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (a[i] != b[i]) return "first differing byte " + std::to_string(i) + " of " + std::to_string(a.size());
  return a.size() == b.size() ? "identical" : "sizes differ";
}

std::string implementation(dlk_context_t context) {
  dlk_op_record record;
  REQUIRE(dlk_context_last_op(context, &record) == DLK_STATUS_SUCCESS);
  return record.implementation;
}

// One context's results of the three passes on the shape, each pass run twice: the two runs of a
// pass must agree bit for bit. Returns {dst, diff_src, diff_weights, diff_bias} and the
// implementations that ran.
struct PassResults {
  std::vector<std::vector<uint8_t>> outputs;
  std::vector<std::string> implementations;
};

PassResults run_passes(dlk_context_t context, const Shape &s, dlk_dtype type, dlk_format format) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, type, s.n, s.c, s.h, s.w, s.k, s.kh, s.kw);
  d.format = format;
  d.pad_h = d.pad_w = s.pad;
  d.stride_h = d.stride_w = s.stride;
  int64_t oh = 0, ow = 0;
  REQUIRE(dlk_conv2d_output_shape(&d, &oh, &ow) == DLK_STATUS_SUCCESS);
  const size_t element = type == DLK_DTYPE_F32 ? 4 : 2;
  const size_t src_count = static_cast<size_t>(s.n * s.c * s.h * s.w);
  const size_t weights_count = static_cast<size_t>(s.k * s.c * s.kh * s.kw);
  const size_t dst_count = static_cast<size_t>(s.n * s.k * oh * ow);

  DeviceBuffer src(context, src_count * element), weights(context, weights_count * element);
  DeviceBuffer diff_dst(context, dst_count * element), dst(context, dst_count * element);
  DeviceBuffer diff_src(context, src_count * element), diff_weights(context, weights_count * element);
  DeviceBuffer diff_bias(context, static_cast<size_t>(s.k) * sizeof(float));
  src.upload(random_bytes(src_count, type, 1));
  weights.upload(random_bytes(weights_count, type, 2));
  diff_dst.upload(random_bytes(dst_count, type, 3));

  PassResults results;
  const char *passes[] = {"forward", "backward data", "backward weights"};
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<std::vector<uint8_t>> runs[2];
    for (auto &run : runs) {
      dlk_status status = DLK_STATUS_SUCCESS;
      if (pass == 0) {
        status = dlk_conv2d_forward(context, &d, src.get(), weights.get(), nullptr, dst.get());
        if (status == DLK_STATUS_SUCCESS) run = {dst.download()};
      } else if (pass == 1) {
        status = dlk_conv2d_backward_data(context, &d, diff_dst.get(), weights.get(), diff_src.get());
        if (status == DLK_STATUS_SUCCESS) run = {diff_src.download()};
      } else {
        status = dlk_conv2d_backward_weights(context, &d, src.get(), diff_dst.get(), diff_weights.get(),
                                             static_cast<float *>(diff_bias.get()));
        if (status == DLK_STATUS_SUCCESS) run = {diff_weights.download(), diff_bias.download()};
      }
      INFO(passes[pass] << ": " << dlk_last_error());
      REQUIRE(status == DLK_STATUS_SUCCESS);
    }
    const std::string ran = implementation(context);
    for (size_t i = 0; i < runs[0].size(); ++i) {
      INFO(passes[pass] << " (" << ran << ") output " << i << ": " << first_difference(runs[0][i], runs[1][i]));
      CHECK(runs[0][i] == runs[1][i]);
      results.outputs.push_back(runs[0][i]);
    }
    results.implementations.push_back(ran);
  }
  return results;
}

}  // namespace

TEST_CASE("cuda conv: every pass gives the same bits twice on a context and on a fresh context",
          "[cuda][gpu][conv2d]") {
  CudaContext first;
  if (first.skip()) return;
  for (const Shape &s : kShapes)
    for (dlk_dtype type : {DLK_DTYPE_F32, DLK_DTYPE_BF16})
      for (dlk_format format : {DLK_FORMAT_NCHW, DLK_FORMAT_NHWC}) {
        INFO(s.name << ", " << (type == DLK_DTYPE_F32 ? "f32" : "bf16") << ", "
                    << (format == DLK_FORMAT_NCHW ? "nchw" : "nhwc"));
        const PassResults a = run_passes(first.get(), s, type, format);
        CudaContext second;
        REQUIRE_FALSE(second.skip());
        const PassResults b = run_passes(second.get(), s, type, format);
        CHECK(a.implementations == b.implementations);
        REQUIRE(a.outputs.size() == b.outputs.size());
        for (size_t i = 0; i < a.outputs.size(); ++i) {
          INFO("output " << i << " across contexts: " << first_difference(a.outputs[i], b.outputs[i]));
          CHECK(a.outputs[i] == b.outputs[i]);
        }
      }
}
