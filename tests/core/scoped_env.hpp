// Environment variables set (or unset) for one scope, restored on the way out, so
// one test's DLK_* settings never reach the next.
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlk_test {

class ScopedEnv {
 public:
  // value NULL: unset the variable for the scope.
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) saved_ = old;
    set(value);
  }
  ~ScopedEnv() { set(saved_ ? saved_->c_str() : nullptr); }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

 private:
  void set(const char *value) {
    if (value)
      setenv(name_.c_str(), value, 1);
    else
      unsetenv(name_.c_str());
  }
  std::string name_;
  std::optional<std::string> saved_;
};

// Every variable dlk reads, unset for the scope: the defaults, whatever the
// environment of the test run holds.
class CleanDlkEnvironment {
 public:
  CleanDlkEnvironment() {
    for (const char *name : {"DLK_BACKEND", "DLK_CPU_ISA", "DLK_NUM_THREADS", "DLK_VERBOSE",
                             "DLK_FPGA_SIM_CONFIG", "DLK_CUDA_TF32", "DLK_CUDA_CONV", "DLK_CUDA_DETERMINISTIC",
                             "DLK_CPU_GEMM"})
      unset_.push_back(std::make_unique<ScopedEnv>(name, nullptr));
  }

 private:
  std::vector<std::unique_ptr<ScopedEnv>> unset_;
};

}  // namespace dlk_test
