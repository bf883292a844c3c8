#include "tests/conformance/targets.hpp"

#include <cstdlib>
#include <sstream>

namespace dlk::conformance {

namespace {

struct Candidate {
  const char *name;
  const char *backend;
  const char *cpu_isa;  // NULL: the context's default (DLK_CPU_ISA, else the best)
};

const Candidate kCandidates[] = {
    {"cpu", "cpu", nullptr},           {"cpu:avx2", "cpu", "avx2"}, {"cpu:scalar", "cpu", "scalar"},
    {"cuda", "cuda", nullptr},         {"fpga_sim", "fpga_sim", nullptr},
};

std::vector<std::string> split(const std::string &list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

bool wanted(const std::vector<std::string> &filter, const std::string &name) {
  if (filter.empty()) return true;
  for (const auto &f : filter)
    if (f == name) return true;
  return false;
}

// Owns the contexts for the life of the process.
struct TargetRegistry {
  Targets targets;

  TargetRegistry() {
    const char *env = std::getenv("DLK_CONFORMANCE_BACKENDS");
    const std::vector<std::string> filter = split(env ? env : "");
    for (const auto &f : filter) {
      bool known = false;
      for (const auto &c : kCandidates) known = known || f == c.name;
      if (!known)
        targets.errors.push_back("DLK_CONFORMANCE_BACKENDS names '" + f +
                                 "'; valid: cpu, cpu:avx2, cpu:scalar, cuda, fpga_sim");
    }
    std::vector<std::string> seen;  // backend:isa pairs already under test
    for (const auto &c : kCandidates) {
      if (!wanted(filter, c.name)) continue;
      dlk_context_options options;
      dlk_context_options_init(&options);
      options.backend = c.backend;
      options.cpu_isa = c.cpu_isa;
      dlk_context_t ctx = nullptr;
      const dlk_status status = dlk_context_create(&ctx, &options);
      if (status == DLK_STATUS_BACKEND_UNAVAILABLE) {
        targets.skipped.push_back(std::string(c.name) + ": skipped: " + dlk_last_error());
        continue;
      }
      if (status != DLK_STATUS_SUCCESS) {
        targets.errors.push_back(std::string(c.name) + ": dlk_context_create returned " +
                                 dlk_status_name(status) + ": " + dlk_last_error());
        continue;
      }
      dlk_context_info info{};
      dlk_context_get_info(ctx, &info);
      const std::string identity = std::string(info.backend) + ":" + info.isa;
      bool duplicate = false;
      for (const auto &s : seen) duplicate = duplicate || s == identity;
      if (duplicate) {
        // `cpu` runs the tier DLK_CPU_ISA names, which may be one already under test.
        targets.skipped.push_back(std::string(c.name) + ": skipped: runs as " + identity +
                                  " on this CPU, already tested");
        dlk_context_destroy(ctx);
        continue;
      }
      seen.push_back(identity);
      targets.available.push_back(Target{c.name, ctx});
    }
  }

  ~TargetRegistry() {
    for (auto &t : targets.available) dlk_context_destroy(t.context);
  }
};

}  // namespace

const Targets &targets() {
  static const TargetRegistry registry;
  return registry.targets;
}

}  // namespace dlk::conformance
