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

}  // namespace

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
                       double topk_fraction) {
  if (ranks < 1) throw std::invalid_argument("bucket_cost: ranks must be at least 1");
  BucketCost c;
  c.algorithm = algorithm;
  if (algorithm == "auto") {
    BucketCost best;
    bool first = true;
    for (const char *candidate : {"native", "fp16", "int8", "onebit"}) {
      const BucketCost t = bucket_cost(candidate, n, ranks, link, codecs, chunk_bytes, topk_fraction);
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
    c.network_seconds = 2 * (p - 1) * a + c.wire_bytes / b;
  } else if (algorithm == "ps") {
    c.wire_bytes = (p - 1) * n;
    c.network_seconds = 2 * (p - 1) * a + 2 * (p - 1) * n / b;
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
  if (is_compressed(algorithm)) {
    const double chunk = algorithm == "topk" ? std::max(chunk_bytes, 4 * 16384 / topk_fraction) : chunk_bytes;
    c.chunks = static_cast<int>(std::max(1.0, std::ceil(n / chunk)));
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
