#include "core/verbose.hpp"

#include <cstdio>

namespace dlk::core {

void print_exec_line(const char *backend, const OpSummary &s, const OpResult &result,
                     double seconds) {
  const double gflops = seconds > 0 ? s.flops / seconds * 1e-9 : 0.0;
  std::fprintf(stderr, "dlk_verbose,exec,%s,%s,%s,%s,%s,%.4fms,%.2fGFLOP/s", backend,
               dlk_op_name(s.op), result.implementation.c_str(), s.types.c_str(),
               s.problem.c_str(), seconds * 1e3, gflops);
  const dlk_sim_record &r = result.sim;
  if (r.struct_size != 0)
    std::fprintf(stderr,
                 ",sim_cycles=%.0f,sim_ms=%.6f,util=%.3f,dram_read=%.0f,dram_written=%.0f,"
                 "buffer_read=%.0f,buffer_written=%.0f,bound=%s,overflows=%lld",
                 r.cycles, r.seconds * 1e3, r.mac_utilization, r.dram_bytes_read,
                 r.dram_bytes_written, r.buffer_bytes_read, r.buffer_bytes_written,
                 r.dram_bound ? "dram" : "compute", static_cast<long long>(r.overflows));
  std::fputc('\n', stderr);
}

void print_info_line(const std::string &what) {
  std::fprintf(stderr, "dlk_verbose,info,%s\n", what.c_str());
}

void print_dispatch_line(const std::string &decision) {
  std::fprintf(stderr, "dlk_verbose,dispatch,%s\n", decision.c_str());
}

}  // namespace dlk::core
