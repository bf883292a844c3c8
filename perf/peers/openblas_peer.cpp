#include "perf/peers/openblas_peer.hpp"

#include <cstdlib>
#include <stdexcept>

#include <cblas.h>
#include <dlfcn.h>

namespace dlk::perf {

// The entry points dlk-perf calls, typed from OpenBLAS's own cblas.h.
struct OpenBlasPeer::Api {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&openblas_get_num_threads) get_num_threads = nullptr;
  decltype(&openblas_get_corename) get_corename = nullptr;
  decltype(&openblas_get_config) get_config = nullptr;
};

namespace {

// The variables that override OpenBLAS's own choice of kernels and blocking.
constexpr const char *kOverrides[] = {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"};

std::vector<std::string> remove_overrides() {
  std::vector<std::string> removed;
  for (const char *name : kOverrides) {
    if (const char *value = std::getenv(name)) {
      removed.push_back(std::string(name) + "=" + value);
      unsetenv(name);
    }
  }
  return removed;
}

template <typename Fn>
void bind(void *handle, const char *symbol, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (!fn) throw std::runtime_error(std::string("OpenBLAS has no symbol ") + symbol);
}

}  // namespace

OpenBlasPeer OpenBlasPeer::load(const OpenBlasLoadOptions &options) {
  const char *candidates[] = {DLK_PERF_OPENBLAS_LIBRARY, "libopenblas.so.0"};
  bool loaded_before = false;
  for (const char *name : candidates) {
    if (void *present = dlopen(name, RTLD_NOW | RTLD_NOLOAD)) {
      loaded_before = true;
      dlclose(present);
    }
  }
  std::vector<std::string> removed, set;
  if (!options.keep_environment) {
    removed = remove_overrides();
    if (options.thread_timeout > 0 && !std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
      const std::string value = std::to_string(options.thread_timeout);
      setenv("OPENBLAS_THREAD_TIMEOUT", value.c_str(), 1);
      set.push_back("OPENBLAS_THREAD_TIMEOUT=" + value);
    }
  }

  // Never closed: OpenBLAS keeps worker threads running until the process ends.
  void *handle = nullptr;
  std::string library;
  for (const char *name : candidates) {
    handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      library = name;
      break;
    }
  }
  if (!handle) throw std::runtime_error(std::string("cannot load OpenBLAS: ") + dlerror());

  auto api = std::make_shared<Api>();
  bind(handle, "cblas_sgemm", api->sgemm);
  bind(handle, "openblas_set_num_threads", api->set_num_threads);
  bind(handle, "openblas_get_num_threads", api->get_num_threads);
  bind(handle, "openblas_get_corename", api->get_corename);
  bind(handle, "openblas_get_config", api->get_config);

  OpenBlasPeer peer;
  peer.api_ = std::move(api);
  peer.library_ = library;
  peer.removed_ = std::move(removed);
  peer.set_ = std::move(set);
  peer.kept_ = options.keep_environment;
  peer.loaded_before_ = loaded_before;
  return peer;
}

void OpenBlasPeer::set_threads(int threads) const { api_->set_num_threads(threads); }

OpenBlasPeer::Description OpenBlasPeer::describe() const {
  return {api_->get_corename(), api_->get_num_threads(), api_->get_config(), library_,
          removed_, set_, kept_};
}

void OpenBlasPeer::sgemm(int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                         int ldb, float beta, float *c, int ldc) const {
  api_->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c,
              ldc);
}

}  // namespace dlk::perf
