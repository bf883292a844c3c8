// A context: one backend object, its configuration, and the record of its last op.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/backend.hpp"
#include "core/conv2d_weights.hpp"
#include "core/env_config.hpp"
#include "core/op_record.hpp"

struct dlk_context {
  dlk::core::ContextConfig config;
  std::unique_ptr<dlk::core::Backend> backend;
  // Packed weights made on this context and not yet destroyed (declared after the
  // backend, so destroyed before it: they free their memory on it).
  std::unordered_map<const dlk_conv2d_weights *, std::unique_ptr<dlk_conv2d_weights>>
      conv2d_weights;
  std::mutex conv2d_weights_mutex;  // guards the map, not the weights
  dlk_op_record last_op{};
  dlk_sim_record last_sim{};  // struct_size 0: the last op was not simulated
  // Set while an op runs: the backend's scratch and last_op belong to one call at
  // a time (dlk.h), so an op that finds it set, another thread's op running on
  // the same context, is refused instead of racing with it.
  std::atomic<bool> busy{false};
};

namespace dlk::core {

// The context, or an invalid-argument error naming `call` when it is NULL.
dlk_context &checked_context(const char *call, dlk_context_t context);

// Throws DLK_STATUS_UNSUPPORTED naming the backend and types when the backend
// does not implement the op for them.
void require_supported(const char *call, const dlk_context &ctx, dlk_op op, dlk_dtype a,
                       dlk_dtype b, dlk_dtype c);

// Whether ops print their verbose exec line (DLK_VERBOSE >= 1).
inline bool prints_exec_lines(const dlk_context &ctx) {
  return ctx.config.backend_config.verbose >= 1;
}

// Holds the context's busy flag for one call: a call that finds it set, another
// thread's call running on the same context, is refused (an invalid-argument
// Error naming 'context') instead of racing with it.
class ExclusiveUse {
 public:
  ExclusiveUse(dlk_context &ctx, dlk_op op);
  ExclusiveUse(dlk_context &ctx, const char *call);
  ~ExclusiveUse() { busy_.store(false, std::memory_order_release); }
  ExclusiveUse(const ExclusiveUse &) = delete;
  ExclusiveUse &operator=(const ExclusiveUse &) = delete;

 private:
  [[noreturn]] static void refuse(const char *call);
  std::atomic<bool> &busy_;
};

// Runs one op on the backend: times it, keeps its record, prints the verbose line.
// Throws an invalid-argument Error naming 'context' when another thread's op is
// running on the same context.
void run_op(dlk_context &ctx, const OpSummary &summary, const std::function<OpResult()> &body);

}  // namespace dlk::core
