// The cuda backend on a real GPU: what the conformance suite does not cover
// (bad pointers, errors that must not stick, the implementation each route
// names, the device's description). Every case skips, saying why, where no
// cuda context can be created.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda_context.hpp"
#include "dlk/dlk.h"

namespace {

using dlk::cuda_test::CudaContext;

// Device memory holding `host`, freed with the object.
template <class T>
class DeviceCopy {
 public:
  DeviceCopy(dlk_context_t context, const std::vector<T> &host) : context_(context), size_(host.size()) {
    REQUIRE(dlk_malloc(context, bytes(), &ptr_) == DLK_STATUS_SUCCESS);
    REQUIRE(dlk_memcpy(context, ptr_, host.data(), bytes(), DLK_COPY_HOST_TO_DEVICE) == DLK_STATUS_SUCCESS);
  }
  ~DeviceCopy() { dlk_free(context_, ptr_); }
  DeviceCopy(const DeviceCopy &) = delete;
  DeviceCopy &operator=(const DeviceCopy &) = delete;
  void *get() const { return ptr_; }
  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    REQUIRE(dlk_memcpy(context_, out.data(), ptr_, bytes(), DLK_COPY_DEVICE_TO_HOST) == DLK_STATUS_SUCCESS);
    return out;
  }

 private:
  size_t bytes() const { return size_ * sizeof(T); }
  dlk_context_t context_;
  size_t size_;
  void *ptr_ = nullptr;
};

std::string implementation(dlk_context_t context) {
  dlk_op_record record;
  REQUIRE(dlk_context_last_op(context, &record) == DLK_STATUS_SUCCESS);
  return record.implementation;
}

}  // namespace

TEST_CASE("cuda device: the context describes the GPU from its properties", "[cuda][gpu]") {
  CudaContext context;
  if (context.skip()) return;
  dlk_context_info info;
  REQUIRE(dlk_context_get_info(context.get(), &info) == DLK_STATUS_SUCCESS);
  CHECK(std::string(info.backend) == "cuda");
  CHECK_THAT(std::string(info.isa), Catch::StartsWith("sm_"));
  CHECK(std::string(info.device).size() > 0);
  CHECK(info.peak_f32_flops > 0);
  CHECK(info.memory_bandwidth > 0);
  if (std::string(info.isa) == "sm_90") {
    CHECK(info.peak_f16_flops > 0);
    CHECK(info.peak_int8_ops == Approx(2 * info.peak_f16_flops));
  }
}

TEST_CASE("cuda device: a host pointer is an invalid argument naming it, and the next call works",
          "[cuda][gpu]") {
  CudaContext context;
  if (context.skip()) return;
  const std::vector<float> ones(4 * 4, 1.0f);
  DeviceCopy<float> a(context.get(), ones), b(context.get(), ones), c(context.get(), std::vector<float>(16));
  dlk_gemm_desc desc;
  dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 4, 4);
  std::vector<float> host(16, 1.0f);
  struct Case {
    const char *argument;
    const void *a, *b;
    void *c;
  };
  for (const Case &bad : {Case{"a", host.data(), b.get(), c.get()}, Case{"b", a.get(), host.data(), c.get()},
                          Case{"c", a.get(), b.get(), host.data()}}) {
    INFO("host pointer as " << bad.argument);
    CHECK(dlk_gemm(context.get(), &desc, bad.a, bad.b, bad.c) == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(dlk_last_error()),
               Catch::StartsWith(std::string("dlk_gemm: argument '") + bad.argument + "' is not device memory"));
  }
  REQUIRE(dlk_gemm(context.get(), &desc, a.get(), b.get(), c.get()) == DLK_STATUS_SUCCESS);
  for (float v : c.to_host()) CHECK(v == 4.0f);
}

TEST_CASE("cuda device: each GEMM route names itself", "[cuda][gpu]") {
  CudaContext context;
  if (context.skip()) return;
  const int64_t m = 16, n = 8, k = 12;
  DeviceCopy<int8_t> a(context.get(), std::vector<int8_t>(m * k, 1)), b(context.get(), std::vector<int8_t>(k * n, 2));
  DeviceCopy<int32_t> c(context.get(), std::vector<int32_t>(m * n));
  dlk_gemm_desc desc;
  // Row-major A (m x k) times B^T with B stored n x k: cuBLASLt's TN form once swapped.
  dlk_gemm_desc_init(&desc, DLK_DTYPE_S8, DLK_DTYPE_S8, DLK_DTYPE_S32, m, n, k);
  desc.trans_b = DLK_TRANSPOSE;
  desc.ldb = k;
  REQUIRE(dlk_gemm(context.get(), &desc, a.get(), b.get(), c.get()) == DLK_STATUS_SUCCESS);
  CHECK(implementation(context.get()) == "cublaslt:gemm_s32");
  for (int32_t v : c.to_host()) CHECK(v == 2 * k);

  desc.a_type = DLK_DTYPE_U8;  // staged: packed, shifted, corrected
  desc.a_zero_point = 1;
  REQUIRE(dlk_gemm(context.get(), &desc, a.get(), b.get(), c.get()) == DLK_STATUS_SUCCESS);
  CHECK(implementation(context.get()) == "cublaslt:gemm_s32+dlk_int8_epilogue");
  for (int32_t v : c.to_host()) CHECK(v == 0);  // (1 - 1) * 2 summed
}

TEST_CASE("cuda device: f32 GEMM runs on TF32 only when the context allows it", "[cuda][gpu]") {
  for (const int allow : {0, 1}) {
    CudaContext context(allow);
    if (context.skip()) return;
    const std::vector<float> ones(64 * 64, 1.0f);
    DeviceCopy<float> a(context.get(), ones), b(context.get(), ones), c(context.get(), ones);
    dlk_gemm_desc desc;
    dlk_gemm_desc_init(&desc, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 64, 64, 64);
    REQUIRE(dlk_gemm(context.get(), &desc, a.get(), b.get(), c.get()) == DLK_STATUS_SUCCESS);
    CHECK(implementation(context.get()) == (allow ? "cublaslt:gemm_tf32" : "cublaslt:gemm_f32"));
  }
}

TEST_CASE("cuda device: pool2d backward refuses an argmax outside its window and writes nothing",
          "[cuda][gpu][pool2d]") {
  CudaContext context;
  if (context.skip()) return;
  dlk_pool2d_desc desc;
  dlk_pool2d_desc_init(&desc, DLK_POOL_MAX, DLK_DTYPE_F32, 1, 1, 4, 4, 2, 2);  // 2 x 2 outputs
  DeviceCopy<int32_t> argmax(context.get(), {0, 2, 8, 3});                     // 3 is in window 1, not 3
  DeviceCopy<float> diff_dst(context.get(), std::vector<float>(4, 1.0f));
  DeviceCopy<float> diff_src(context.get(), std::vector<float>(16, 7.0f));
  CHECK(dlk_pool2d_backward(context.get(), &desc, diff_dst.get(), static_cast<const int32_t *>(argmax.get()),
                            diff_src.get()) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()), Catch::StartsWith("dlk_pool2d_backward: argument 'argmax'"));
  for (float v : diff_src.to_host()) CHECK(v == 7.0f);
}
