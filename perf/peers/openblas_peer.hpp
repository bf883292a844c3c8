// OpenBLAS as the CPU peer, loaded with dlopen so that dlk-perf decides what
// OpenBLAS sees before it initializes: OpenBLAS reads OPENBLAS_CORETYPE (forced
// kernel set) and OPENBLAS_L2_SIZE when it is loaded. This machine's environment
// sets OPENBLAS_CORETYPE=Haswell, which runs AVX2 kernels at half the speed of
// the Cooperlake kernels OpenBLAS picks itself on this AVX-512 CPU; a fair
// comparison removes both variables first.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace dlk::perf {

struct OpenBlasLoadOptions {
  // Leave the environment as it is: no variable removed or set.
  bool keep_environment = false;
  // OPENBLAS_THREAD_TIMEOUT to set when the environment has none: idle workers
  // spin about 2^value TSC cycles before they sleep (OpenBLAS's default is 28,
  // about 0.1 s, long enough to take cores from the next dlk call). 0: leave it.
  int thread_timeout = 0;
};

class OpenBlasPeer {
 public:
  // Loads the OpenBLAS that dlk-perf was built against (its pthread build), else
  // libopenblas.so.0. Unless options.keep_environment, first removes
  // OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE from this process's environment and
  // sets OPENBLAS_THREAD_TIMEOUT as asked. Throws std::runtime_error when
  // OpenBLAS cannot be loaded.
  static OpenBlasPeer load(const OpenBlasLoadOptions &options);

  // openblas_set_num_threads; describe() says what OpenBLAS then uses.
  void set_threads(int threads) const;

  // What a report says about the peer it ran.
  struct Description {
    std::string core;     // openblas_get_corename(): the kernel set it runs
    int threads = 0;      // openblas_get_num_threads()
    std::string config;   // openblas_get_config(): version and build options
    std::string library;  // what was dlopen'ed
    std::vector<std::string> removed_environment;  // "NAME=value" removed before loading
    std::vector<std::string> set_environment;      // "NAME=value" set before loading
    bool kept_environment = false;
  };
  Description describe() const;

  // True when OpenBLAS was in the process before load(), so removing the
  // variables could not change the core it had picked.
  bool was_loaded_before() const { return loaded_before_; }

  // cblas_sgemm, row-major, no transposes.
  void sgemm(int m, int n, int k, float alpha, const float *a, int lda, const float *b, int ldb,
             float beta, float *c, int ldc) const;

 private:
  struct Api;
  OpenBlasPeer() = default;
  std::shared_ptr<const Api> api_;
  std::string library_;
  std::vector<std::string> removed_;
  std::vector<std::string> set_;
  bool kept_ = false;
  bool loaded_before_ = false;
};

}  // namespace dlk::perf
