#include "tests/cpu/cpu_context.hpp"

#include <stdexcept>

namespace dlk::cpu_test {

std::vector<std::string> cpu_tiers() {
  std::vector<std::string> tiers;
  for (const char *isa : {"avx512", "avx2", "scalar"}) {
    dlk_context_options o;
    dlk_context_options_init(&o);
    o.backend = "cpu", o.cpu_isa = isa;
    dlk_context_t ctx = nullptr;
    if (dlk_context_create(&ctx, &o) != DLK_STATUS_SUCCESS) continue;
    dlk_context_info info;
    // A tier above the CPU's is capped to what it has: keep each tier once.
    if (dlk_context_get_info(ctx, &info) == DLK_STATUS_SUCCESS && std::string(info.isa) == isa)
      tiers.push_back(isa);
    dlk_context_destroy(ctx);
  }
  return tiers;
}

Context::Context(const std::string &isa, int threads) {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "cpu", o.cpu_isa = isa.empty() ? nullptr : isa.c_str(), o.num_threads = threads;
  if (dlk_context_create(&ctx_, &o) != DLK_STATUS_SUCCESS)
    throw std::runtime_error(dlk_last_error());
}

Context::~Context() { dlk_context_destroy(ctx_); }

}  // namespace dlk::cpu_test
