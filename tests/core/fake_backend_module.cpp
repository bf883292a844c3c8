// A backend module that core loads as 'cuda' (libdlk_cuda.so.<abi>) for
// fake_module_test, so the module loader, the registry and the UNSUPPORTED rule
// of every op are tested on any machine. It implements f32 GEMM only (as a
// no-op: the test looks at statuses, not results), and options->device picks
// how it answers: 0 creates it, 1 declines (no device), 2 rejects the option.
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

#include "core/backend.hpp"

namespace {

using namespace dlk::core;

class FakeBackend final : public Backend {
 public:
  explicit FakeBackend(const BackendConfig &config)
      : allow_tf32_(config.allow_tf32), deterministic_(config.cuda_deterministic) {}
  const char *name() const override { return "fake_cuda"; }
  // The device says whether TF32 and the non-deterministic opt-out reached the backend's
  // configuration.
  DeviceInfo info() const override {
    DeviceInfo d;
    d.device = allow_tf32_ ? "fake device, tf32 allowed" : "fake device";
    if (!deterministic_) d.device += ", nondeterministic";
    d.isa = "fake";
    return d;
  }
  bool supports(dlk_op op, dlk_dtype a, dlk_dtype b, dlk_dtype c) const override {
    return op == DLK_OP_GEMM && a == DLK_DTYPE_F32 && b == DLK_DTYPE_F32 && c == DLK_DTYPE_F32;
  }
  void *allocate(size_t bytes) override {
    void *p = std::malloc(bytes);
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(p);
    return p;
  }
  void deallocate(void *ptr) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      live_.erase(ptr);
    }
    std::free(ptr);
  }
  bool owns(const void *ptr) const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_.count(ptr) != 0;
  }
  void copy(void *, const void *, size_t, dlk_copy_kind) override {}
  void synchronize() override {}
  OpResult gemm(const GemmArgs &) override { return {"fake_gemm", 0}; }
  // supports() keeps core from calling these.
  OpResult conv2d_forward(const Conv2dArgs &) override { return not_supported(); }
  OpResult conv2d_backward_data(const Conv2dArgs &) override { return not_supported(); }
  OpResult conv2d_backward_weights(const Conv2dArgs &) override { return not_supported(); }
  OpResult pool2d_forward(const Pool2dArgs &) override { return not_supported(); }
  OpResult pool2d_backward(const Pool2dArgs &) override { return not_supported(); }

 private:
  static OpResult not_supported() {
    throw Error(DLK_STATUS_INTERNAL_ERROR, "fake_cuda: called for an op supports() declines");
  }
  bool allow_tf32_;
  bool deterministic_;
  mutable std::mutex mutex_;
  std::set<const void *> live_;
};

}  // namespace

extern "C" __attribute__((visibility("default"))) Backend *dlk_backend_module_create(
    int api_version, const BackendConfig *config, dlk_status *status, char *error,
    size_t error_size) {
  *status = DLK_STATUS_BACKEND_UNAVAILABLE;
  if (api_version != DLK_BACKEND_MODULE_API_VERSION) {
    std::snprintf(error, error_size, "fake module built for API %d, asked for %d",
                  DLK_BACKEND_MODULE_API_VERSION, api_version);
    return nullptr;
  }
  switch (config->device) {
    case 0: return new FakeBackend(*config);
    case 1: std::snprintf(error, error_size, "fake: no device here"); return nullptr;
    default:
      *status = DLK_STATUS_INVALID_ARGUMENT;
      std::snprintf(error, error_size,
                    "dlk_context_create: argument 'options->device' is %d; the fake has 0 and 1",
                    config->device);
      return nullptr;
  }
}
