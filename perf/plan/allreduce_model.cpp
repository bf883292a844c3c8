#include "perf/plan/allreduce_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace dlk::perf {
namespace {

const BucketCodec &codec_of(const std::string &algorithm,
                            const std::vector<std::pair<std::string, BucketCodec>> &codecs) {
  for (const auto &[name, codec] : codecs)
    if (name == algorithm) return codec;
  throw std::invalid_argument("bucket_cost: no measured codec for " + algorithm);
}

// comm/message_pieces.hpp's kPieceBytes: below Open MPI's 64 KiB eager limit.
constexpr double kPieceBytes = 60 << 10;

double pieces(double bytes) { return std::max(1.0, std::ceil(bytes / kPieceBytes)); }

// comm/algorithms.hpp's kMpiPieceElements: native and ps call MPI on at most
// 16 MiB at a time, one call after another.
constexpr double kMpiCallBytes = 16 << 20;

double mpi_calls(const std::string &algorithm, double n) {
  return algorithm == "native" || algorithm == "ps" ? std::max(1.0, std::ceil(n / kMpiCallBytes)) : 1.0;
}

// Pipeline rounds of a compressed algorithm (comm/chunk_plan.hpp).
double rounds(const std::string &algorithm, double n, double p, double chunk_bytes, double topk_fraction) {
  if (algorithm == "topk") return std::max(1.0, std::ceil(n / std::max(chunk_bytes, 4 * 16384 / topk_fraction)));
  return std::max(1.0, std::ceil(n / p / chunk_bytes));
}

}  // namespace

double allreduce_messages(const std::string &algorithm, double n, double message_bytes, int ranks,
                          double chunk_bytes, double topk_fraction) {
  const double p = ranks;
  if (ranks < 2) return 0;
  if (!is_compressed(algorithm)) return 2 * (p - 1) * mpi_calls(algorithm, n);
  const double k = rounds(algorithm, n, p, chunk_bytes, topk_fraction);
  if (algorithm == "topk") return (p - 1) * k * pieces(message_bytes / k);
  return 2 * (p - 1) * k * pieces(message_bytes / p / k);
}

const std::vector<std::string> &plan_algorithms() {
  static const std::vector<std::string> names{"native", "ring", "ps", "onebit", "int8", "int4",
                                              "fp16", "bf16", "topk", "auto"};
  return names;
}

bool is_compressed(const std::string &a) {
  return a == "onebit" || a == "int8" || a == "int4" || a == "fp16" || a == "bf16" || a == "topk";
}

double chunk_bytes_from_environment() {
  if (const char *text = std::getenv("DLK_COMM_CHUNK_BYTES")) {
    const double v = std::strtod(text, nullptr);
    if (v > 0 && std::isfinite(v)) return v;
  }
  return 1 << 20;
}

BucketCost bucket_cost(const std::string &algorithm, double n, int ranks, const LinkSpec &link,
                       const std::vector<std::pair<std::string, BucketCodec>> &codecs, double chunk_bytes,
                       double topk_fraction, const std::vector<std::pair<std::string, MeasuredTerms>> &measured_terms) {
  if (ranks < 1) throw std::invalid_argument("bucket_cost: ranks must be at least 1");
  BucketCost c;
  c.algorithm = algorithm;
  if (algorithm == "auto") {
    BucketCost best;
    bool first = true;
    for (const char *candidate : {"native", "fp16", "int8", "onebit"}) {
      const BucketCost t = bucket_cost(candidate, n, ranks, link, codecs, chunk_bytes, topk_fraction, measured_terms);
      if (first || t.network_phase_seconds + t.codec_phase_seconds <
                       best.network_phase_seconds + best.codec_phase_seconds)
        best = t;
      first = false;
    }
    return best;
  }
  if (ranks == 1) {
    if (algorithm != "native" && algorithm != "ring" && algorithm != "ps" && !is_compressed(algorithm))
      throw std::invalid_argument("bucket_cost: unknown algorithm " + algorithm);
    return c;  // one rank: nothing to send, nothing to encode
  }
  const double p = ranks, a = link.latency, b = link.bandwidth;
  if (algorithm == "native" || algorithm == "ring") {
    c.wire_bytes = 2 * (p - 1) / p * n;
    c.network_seconds = 2 * (p - 1) * a * mpi_calls(algorithm, n) + c.wire_bytes / b;
  } else if (algorithm == "ps") {
    c.wire_bytes = (p - 1) * n;
    c.network_seconds = 2 * (p - 1) * a * mpi_calls(algorithm, n) + 2 * (p - 1) * n / b;
  } else if (algorithm == "topk") {
    const BucketCodec &k = codec_of(algorithm, codecs);
    c.wire_bytes = (p - 1) * k.message_bytes;
    c.network_seconds = 2 * (p - 1) * a + c.wire_bytes / b;
    c.codec_seconds = k.encode_seconds + p * k.decode_seconds;
  } else if (is_compressed(algorithm)) {
    const BucketCodec &k = codec_of(algorithm, codecs);
    c.wire_bytes = 2 * (p - 1) / p * k.message_bytes;
    c.network_seconds = 2 * (p - 1) * a + c.wire_bytes / b;
    c.codec_seconds = (1 + 1 / p) * k.encode_seconds + 2 * k.decode_seconds;
  } else {
    throw std::invalid_argument("bucket_cost: unknown algorithm " + algorithm);
  }
  const MeasuredTerms *measured = nullptr;
  for (const auto &[name, terms] : measured_terms)
    if (name == algorithm) measured = &terms;
  const double message_bytes = is_compressed(algorithm) ? codec_of(algorithm, codecs).message_bytes : n;
  c.messages = allreduce_messages(algorithm, n, message_bytes, ranks, chunk_bytes, topk_fraction);
  if (measured) {
    if (measured->codec_seconds >= 0 && is_compressed(algorithm)) c.codec_seconds = measured->codec_seconds;
    c.network_seconds += c.messages * measured->message_latency;
    c.cpu_seconds = measured->cpu_seconds;
  }
  if (is_compressed(algorithm)) {
    c.chunks = static_cast<int>(rounds(algorithm, n, p, chunk_bytes, topk_fraction));
    const double k = c.chunks;
    if (c.codec_seconds >= c.network_seconds) {
      c.codec_phase_seconds = c.codec_seconds;
      c.network_phase_seconds = c.network_seconds / k;
    } else {
      c.codec_phase_seconds = c.codec_seconds / k;
      c.network_phase_seconds = c.network_seconds;
    }
  } else {
    c.network_phase_seconds = c.network_seconds;
  }
  return c;
}

}  // namespace dlk::perf
