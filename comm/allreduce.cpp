#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>

#include "common/enum_field.hpp"
#include "comm/agreement.hpp"
#include "comm/algorithm.hpp"
#include "comm/algorithms.hpp"
#include "comm/auto_select.hpp"
#include "comm/buffer.hpp"
#include "comm/error.hpp"
#include "comm/stopwatch.hpp"

namespace dlk::comm {
namespace {

int64_t bits_of(double v) {
  int64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

dlk_codec_params codec_params(const char *call, const Buffer &b, dlk_comm_algorithm algorithm) {
  dlk_codec_params params;
  check_codec(call, dlk_compress_params_init(&params, codec_of(algorithm)));
  if (b.config.block_size) params.block_size = b.config.block_size;
  params.rounding =
      b.config.stochastic_rounding ? DLK_CODEC_ROUND_STOCHASTIC : DLK_CODEC_ROUND_NEAREST_EVEN;
  params.seed = b.config.seed;
  params.step = b.calls;
  params.rank = static_cast<uint32_t>(b.comm->rank());
  params.topk_fraction = b.config.topk_fraction;
  params.topk_selection = b.config.topk_exact ? DLK_CODEC_TOPK_EXACT : DLK_CODEC_TOPK_SAMPLED;
  return params;
}

void size_residuals(Buffer &b, dlk_comm_algorithm algorithm) {
  const ResidualLengths lengths =
      residual_lengths(algorithm, b.count, static_cast<uint32_t>(b.comm->size()),
                       static_cast<uint32_t>(b.comm->rank()));
  b.worker_residual.resize(lengths.worker);
  b.server_residual.resize(lengths.server);
}

}  // namespace

Buffer make_buffer(const char *call, Communicator &comm, uint64_t count,
                   const dlk_comm_config &config) {
  const int algorithm = enum_field::stored_int(config.algorithm);
  if (!known_algorithm(algorithm))
    throw_invalid(call, "config->algorithm",
                  "is " + std::to_string(algorithm) +
                      "; valid values: DLK_COMM_ALGO_DEFAULT or one of " + algorithm_names());
  if (!(config.topk_fraction > 0.0 && config.topk_fraction <= 1.0))
    throw_invalid(call, "config->topk_fraction", "must be in (0, 1]");
  Buffer b{&comm, count, config, config.algorithm, {}, {}, 0, {}};
  if (b.config.algorithm == DLK_COMM_ALGO_DEFAULT) b.config.algorithm = comm.default_algorithm();
  b.chosen = b.config.algorithm;
  if (compressed(b.config.algorithm)) {
    // The codec's own rules (block size) are checked once, here.
    dlk_codec_params params = codec_params(call, b, b.config.algorithm);
    size_t bytes;
    if (dlk_compress_max_message_size(&params, count, &bytes) != DLK_CODEC_SUCCESS)
      throw_invalid(call, "config", dlk_compress_last_error());
  }
  size_residuals(b, b.config.algorithm);
  return b;
}

void allreduce(const char *call, Buffer &b, float *data, dlk_comm_report &report,
               bool caller_waits) {
  const Stopwatch total;
  Communicator &comm = *b.comm;
  const dlk_comm_config &cfg = b.config;
  report = dlk_comm_report{};
  report.wait_seconds = agree(
      comm.mpi(), call,
      {{"count", static_cast<int64_t>(b.count)},
       {"algorithm", cfg.algorithm, true},
       {"average", cfg.average != 0},
       {"block_size", cfg.block_size},
       {"stochastic_rounding", cfg.stochastic_rounding != 0},
       {"seed", static_cast<int64_t>(cfg.seed)},
       {"topk_fraction (bits)", bits_of(cfg.topk_fraction)},
       {"topk_exact", cfg.topk_exact != 0},
       {"warmup_steps", static_cast<int64_t>(cfg.warmup_steps)},
       {"min_compress_bytes", static_cast<int64_t>(cfg.min_compress_bytes)},
       {"DLK_COMM_CHUNK_BYTES", static_cast<int64_t>(comm.chunk_bytes())},
       {"calls made on this buffer", static_cast<int64_t>(b.calls)}});

  if (b.chosen == DLK_COMM_ALGO_AUTO) {
    b.chosen = choose_algorithm(call, comm, b.count, cfg);
    size_residuals(b, b.chosen);
  }
  dlk_comm_algorithm algorithm = b.chosen;
  if (compressed(algorithm) &&
      (b.calls < cfg.warmup_steps || 4 * b.count < cfg.min_compress_bytes))
    algorithm = DLK_COMM_ALGO_NATIVE;

  const Collective c{call, comm.mpi(), comm.rank(), comm.size(), data,
                     b.count, cfg.average != 0, comm.chunk_bytes(), caller_waits, report};
  switch (algorithm) {
    case DLK_COMM_ALGO_NATIVE: allreduce_native(c); break;
    case DLK_COMM_ALGO_RING: allreduce_ring(c, b.scratch); break;
    case DLK_COMM_ALGO_PS: allreduce_ps(c); break;
    case DLK_COMM_ALGO_TOPK:
      allreduce_topk(c, codec_params(call, b, algorithm), b.worker_residual.data(), b.scratch);
      break;
    default:
      allreduce_two_phase(c, codec_params(call, b, algorithm), b.worker_residual.data(),
                          b.server_residual.data(), b.scratch);
  }
  ++b.calls;
  report.algorithm = algorithm;
  report.logical_bytes = 4 * b.count;
  report.total_seconds = total.seconds();
  if (comm.verbose() >= 1 && comm.rank() == 0)
    std::fprintf(stderr,
                 "dlk_verbose,comm,allreduce,%s,ranks:%d,count:%llu,%.4fms,wire_sent:%llu,"
                 "encode:%.4fms,network:%.4fms,decode:%.4fms,wait:%.4fms\n",
                 algorithm_name(algorithm), comm.size(),
                 static_cast<unsigned long long>(b.count), report.total_seconds * 1e3,
                 static_cast<unsigned long long>(report.wire_bytes_sent),
                 report.encode_seconds * 1e3, report.network_seconds * 1e3,
                 report.decode_seconds * 1e3, report.wait_seconds * 1e3);
}

}  // namespace dlk::comm
