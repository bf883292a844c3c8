// C ABI: library facts, names, the last error, and contexts.
#include <cstring>
#include <string>

#include "common/message_buffer.hpp"
#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "core/op_types.hpp"
#include "core/registry.hpp"
#include "core/sized_struct.hpp"
#include "core/validate.hpp"
#include "core/verbose.hpp"

namespace dlk::core {
namespace {
thread_local MessageBuffer last_error;
}  // namespace
void set_last_error(std::string_view message, std::string_view more, std::string_view last) {
  last_error.store(message, more, last);
}
}  // namespace dlk::core

using namespace dlk::core;

namespace {

void copy_string(char *dst, size_t size, const std::string &src) {
  std::strncpy(dst, src.c_str(), size - 1);
  dst[size - 1] = '\0';
}

}  // namespace

extern "C" {

const char *dlk_status_name(dlk_status status) {
  switch (status) {
    case DLK_STATUS_SUCCESS: return "success";
    case DLK_STATUS_INVALID_ARGUMENT: return "invalid_argument";
    case DLK_STATUS_UNSUPPORTED: return "unsupported";
    case DLK_STATUS_OUT_OF_MEMORY: return "out_of_memory";
    case DLK_STATUS_BACKEND_UNAVAILABLE: return "backend_unavailable";
    case DLK_STATUS_RUNTIME_ERROR: return "runtime_error";
    case DLK_STATUS_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown";
}

const char *dlk_last_error(void) { return last_error.c_str(); }

dlk_version dlk_get_version(void) {
  return dlk_version{DLK_VERSION_MAJOR, DLK_VERSION_MINOR, DLK_VERSION_PATCH, DLK_ABI_VERSION};
}

const char *dlk_dtype_name(dlk_dtype dtype) {
  switch (dtype) {
    case DLK_DTYPE_F32: return "f32";
    case DLK_DTYPE_F16: return "f16";
    case DLK_DTYPE_BF16: return "bf16";
    case DLK_DTYPE_S8: return "s8";
    case DLK_DTYPE_U8: return "u8";
    case DLK_DTYPE_S32: return "s32";
  }
  return "unknown";
}

size_t dlk_dtype_size(dlk_dtype dtype) {
  switch (dtype) {
    case DLK_DTYPE_F32: case DLK_DTYPE_S32: return 4;
    case DLK_DTYPE_F16: case DLK_DTYPE_BF16: return 2;
    case DLK_DTYPE_S8: case DLK_DTYPE_U8: return 1;
  }
  return 0;
}

const char *dlk_op_name(dlk_op op) {
  switch (op) {
    case DLK_OP_GEMM: return "gemm";
    case DLK_OP_CONV2D_FORWARD: return "conv2d_forward";
    case DLK_OP_CONV2D_BACKWARD_DATA: return "conv2d_backward_data";
    case DLK_OP_CONV2D_BACKWARD_WEIGHTS: return "conv2d_backward_weights";
    case DLK_OP_POOL2D_FORWARD: return "pool2d_forward";
    case DLK_OP_POOL2D_BACKWARD: return "pool2d_backward";
  }
  return "unknown";
}

void dlk_context_options_init_sized(dlk_context_options *options, size_t struct_size) {
  if (!options) return;
  dlk_context_options defaults{};
  defaults.struct_size = struct_size;
  defaults.verbose = -1;
  defaults.allow_tf32 = -1;
  write_sized(options, struct_size, defaults);
}

dlk_status dlk_context_create(dlk_context_t *context, const dlk_context_options *options) {
  return api_guard("dlk_context_create", [&] {
    if (!context) throw_invalid("dlk_context_create", "context", "must not be NULL");
    auto ctx = std::make_unique<dlk_context>();
    ctx->config = resolve_context_config(options);
    try {
      ctx->backend =
          create_backend(ctx->config.backend, ctx->config.backend_config, ctx->config.decisions);
    } catch (const Error &e) {
      // The registry says why a backend cannot run ("backend 'cuda': ..."); the
      // message names the call too. Other errors (a module's invalid option) do already.
      if (e.status() != DLK_STATUS_BACKEND_UNAVAILABLE) throw;
      throw Error(e.status(), std::string("dlk_context_create: ") + e.what());
    }
    const BackendConfig &bc = ctx->config.backend_config;
    if (bc.verbose >= 2)
      for (const auto &d : ctx->config.decisions) print_dispatch_line(d);
    if (bc.verbose >= 1) {
      const DeviceInfo info = ctx->backend->info();
      print_info_line(std::string("context,backend=") + ctx->backend->name() +
                      ",device=" + info.device + ",isa=" + info.isa +
                      ",threads=" + std::to_string(bc.num_threads));
    }
    *context = ctx.release();
  });
}

dlk_status dlk_context_destroy(dlk_context_t context) {
  return api_guard("dlk_context_destroy", [&] { delete context; });
}

dlk_status dlk_context_get_info_sized(dlk_context_t context, dlk_context_info *info,
                                     size_t info_size) {
  return api_guard("dlk_context_get_info", [&] {
    dlk_context &ctx = checked_context("dlk_context_get_info", context);
    if (!info) throw_invalid("dlk_context_get_info", "info", "must not be NULL");
    check::output_size("dlk_context_get_info", "info", info_size, sizeof(dlk_context_info));
    const DeviceInfo d = ctx.backend->info();
    dlk_context_info out{};
    copy_string(out.backend, sizeof(out.backend), ctx.backend->name());
    copy_string(out.device, sizeof(out.device), d.device);
    copy_string(out.isa, sizeof(out.isa), d.isa);
    out.num_threads = ctx.config.backend_config.num_threads;
    out.peak_f32_flops = d.peak_f32_flops;
    out.peak_f16_flops = d.peak_f16_flops;
    out.peak_bf16_flops = d.peak_bf16_flops;
    out.peak_int8_ops = d.peak_int8_ops;
    out.memory_bandwidth = d.memory_bandwidth;
    write_sized(info, info_size, out);
  });
}

dlk_status dlk_context_supports(dlk_context_t context, dlk_op op, dlk_dtype a_type,
                                dlk_dtype b_type, dlk_dtype c_type, int *supported) {
  return api_guard("dlk_context_supports", [&] {
    dlk_context &ctx = checked_context("dlk_context_supports", context);
    if (!supported) throw_invalid("dlk_context_supports", "supported", "must not be NULL");
    if (!check::holds(op, {DLK_OP_GEMM, DLK_OP_CONV2D_FORWARD, DLK_OP_CONV2D_BACKWARD_DATA,
                           DLK_OP_CONV2D_BACKWARD_WEIGHTS, DLK_OP_POOL2D_FORWARD,
                           DLK_OP_POOL2D_BACKWARD}))
      throw_invalid("dlk_context_supports", "op", "is not a dlk_op value");
    if (!check::holds_dtype(a_type))
      throw_invalid("dlk_context_supports", "a_type", "is not a dlk_dtype value");
    if (!check::holds_dtype(b_type))
      throw_invalid("dlk_context_supports", "b_type", "is not a dlk_dtype value");
    if (!check::holds_dtype(c_type))
      throw_invalid("dlk_context_supports", "c_type", "is not a dlk_dtype value");
    *supported = op_defines_types(op, a_type, b_type, c_type) &&
                         ctx.backend->supports(op, a_type, b_type, c_type)
                     ? 1
                     : 0;
  });
}

dlk_status dlk_context_last_op_sized(dlk_context_t context, dlk_op_record *record,
                                    size_t record_size) {
  return api_guard("dlk_context_last_op", [&] {
    dlk_context &ctx = checked_context("dlk_context_last_op", context);
    if (!record) throw_invalid("dlk_context_last_op", "record", "must not be NULL");
    check::output_size("dlk_context_last_op", "record", record_size, sizeof(dlk_op_record));
    if (ctx.last_op.op == 0)
      throw_invalid("dlk_context_last_op", "context", "has run no op yet");
    write_sized(record, record_size, ctx.last_op);
  });
}

static_assert(sizeof(dlk_sim_record) >= DLK_SIM_RECORD_SIZE_V1,
              "dlk_sim_record may only grow at its end");

dlk_status dlk_context_last_sim(dlk_context_t context, dlk_sim_record *record) {
  return api_guard("dlk_context_last_sim", [&] {
    dlk_context &ctx = checked_context("dlk_context_last_sim", context);
    if (!record) throw_invalid("dlk_context_last_sim", "record", "must not be NULL");
    if (record->struct_size < DLK_SIM_RECORD_SIZE_V1)
      throw_invalid("dlk_context_last_sim", "record->struct_size",
                    "must be sizeof(dlk_sim_record) (at least " +
                        std::to_string(DLK_SIM_RECORD_SIZE_V1) + "), not " +
                        std::to_string(record->struct_size));
    if (ctx.last_op.op == 0)
      throw_invalid("dlk_context_last_sim", "context", "has run no op yet");
    if (ctx.last_sim.struct_size == 0)
      throw_invalid("dlk_context_last_sim", "context",
                    std::string("runs on backend '") + ctx.backend->name() +
                        "', which simulates nothing (only fpga_sim does)");
    // A caller built against a later dlk.h passes a larger struct: fill what
    // this library knows and leave the rest, and the size, as given.
    const size_t caller_size = record->struct_size;
    std::memcpy(record, &ctx.last_sim, sizeof(dlk_sim_record));
    record->struct_size = caller_size;
  });
}

}  // extern "C"
