#include "perf/peers/onednn_isa.hpp"

#include <stdexcept>
#include <utility>

#include <oneapi/dnnl/dnnl.hpp>

namespace dlk::perf {
namespace {

const std::pair<const char *, dnnl::cpu_isa> kIsas[] = {
    {"all", dnnl::cpu_isa::all},
    {"avx512_core_amx", dnnl::cpu_isa::avx512_core_amx},
    {"avx512_core_bf16", dnnl::cpu_isa::avx512_core_bf16},
    {"avx512_core_vnni", dnnl::cpu_isa::avx512_core_vnni},
    {"avx512_core", dnnl::cpu_isa::avx512_core},
    {"avx2_vnni", dnnl::cpu_isa::avx2_vnni},
    {"avx2", dnnl::cpu_isa::avx2},
    {"avx", dnnl::cpu_isa::avx},
    {"sse41", dnnl::cpu_isa::sse41},
};

}  // namespace

const std::vector<std::string> &onednn_isa_names() {
  static const std::vector<std::string> names{"all", "avx512_core_amx", "avx512_core_bf16", "avx512_core_vnni",
                                              "avx512_core", "avx2"};
  return names;
}

void set_onednn_max_isa(const std::string &name) {
  if (name == "all") return;
  for (const auto &[isa_name, isa] : kIsas)
    if (name == isa_name) {
      if (dnnl::set_max_cpu_isa(isa) != dnnl::status::success)
        throw std::runtime_error("oneDNN refused its ISA cap '" + name +
                                 "': its ISA is already fixed in this process, or it was built without "
                                 "DNNL_MAX_CPU_ISA support");
      return;
    }
  throw std::runtime_error("unknown oneDNN ISA '" + name + "'");
}

std::string onednn_effective_isa() {
  const dnnl::cpu_isa effective = dnnl::get_effective_cpu_isa();
  for (const auto &[isa_name, isa] : kIsas)
    if (isa == effective && isa != dnnl::cpu_isa::all) return isa_name;
  return "isa " + std::to_string(static_cast<int>(effective));
}

std::string onednn_isa_caveat(const std::string &isa) {
  return isa.find("amx") != std::string::npos
             ? "AMX tiles for bf16 and int8, as dlk's avx512 tier runs its GEMM there"
             : "";
}

}  // namespace dlk::perf
