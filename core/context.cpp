#include "core/context.hpp"

#include <chrono>
#include <cstring>

#include "core/verbose.hpp"

namespace dlk::core {

dlk_context &checked_context(const char *call, dlk_context_t context) {
  if (!context) throw_invalid(call, "context", "must not be NULL");
  return *context;
}

void require_supported(const char *call, const dlk_context &ctx, dlk_op op, dlk_dtype a,
                       dlk_dtype b, dlk_dtype c) {
  if (!ctx.backend->supports(op, a, b, c))
    throw_unsupported(call, std::string("backend '") + ctx.backend->name() + "' does not implement " +
                                dlk_op_name(op) + " for " + dlk_dtype_name(a) + ":" +
                                dlk_dtype_name(b) + ":" + dlk_dtype_name(c));
}

ExclusiveUse::ExclusiveUse(dlk_context &ctx, dlk_op op) : busy_(ctx.busy) {
  if (busy_.exchange(true, std::memory_order_acquire)) refuse((std::string("dlk_") + dlk_op_name(op)).c_str());
}

ExclusiveUse::ExclusiveUse(dlk_context &ctx, const char *call) : busy_(ctx.busy) {
  if (busy_.exchange(true, std::memory_order_acquire)) refuse(call);
}

void ExclusiveUse::refuse(const char *call) {
  throw_invalid(call, "context",
                "is running another thread's call (a context may be used by one thread at a "
                "time: give each thread its own)");
}

void run_op(dlk_context &ctx, const OpSummary &summary, const std::function<OpResult()> &body) {
  const ExclusiveUse claim(ctx, summary.op);
  const bool verbose = prints_exec_lines(ctx);
  const auto start = std::chrono::steady_clock::now();
  OpResult result = body();
  // An asynchronous backend's time means something only once the op finished.
  if (verbose) ctx.backend->synchronize();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  dlk_op_record &r = ctx.last_op;
  r = dlk_op_record{};
  r.op = summary.op;
  std::strncpy(r.implementation, result.implementation.c_str(), sizeof(r.implementation) - 1);
  r.seconds = seconds;
  r.flops = summary.flops;
  r.bytes = summary.bytes;
  r.sim_cycles = result.sim_cycles;
  ctx.last_sim = result.sim;
  if (verbose) print_exec_line(ctx.backend->name(), summary, result, seconds);
}

}  // namespace dlk::core
