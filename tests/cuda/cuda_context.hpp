// A cuda context for one test case, or none (with the reason) where it cannot
// be created, so that every GPU case on a machine without one skips saying why.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "dlk/dlk.h"

namespace dlk::cuda_test {

class CudaContext {
 public:
  explicit CudaContext(int allow_tf32 = 0) {
    dlk_context_options options;
    dlk_context_options_init(&options);
    options.backend = "cuda";
    options.allow_tf32 = allow_tf32;
    if (dlk_context_create(&context_, &options) != DLK_STATUS_SUCCESS) {
      why_not_ = dlk_last_error();
      context_ = nullptr;
    }
  }
  ~CudaContext() { dlk_context_destroy(context_); }
  CudaContext(const CudaContext &) = delete;
  CudaContext &operator=(const CudaContext &) = delete;
  dlk_context_t get() const { return context_; }
  // True (after a warning naming the reason) where there is no context.
  bool skip() const {
    if (context_) return false;
    WARN("SKIPPED: no cuda context here: " << why_not_);
    return true;
  }

 private:
  dlk_context_t context_ = nullptr;
  std::string why_not_;
};

}  // namespace dlk::cuda_test
