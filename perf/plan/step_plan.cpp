#include "perf/plan/step_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace dlk::perf {

double codec_time_sharing(int ranks_here, int cores) {
  if (ranks_here < 1 || cores < 1)
    throw std::invalid_argument("codec_time_sharing: ranks_here and cores must be at least 1");
  return std::max(1.0, static_cast<double>(ranks_here) / cores);
}

CodecLookup time_shared(CodecLookup codecs, double factor) {
  return [codecs = std::move(codecs), factor](const std::string &algorithm, std::uint64_t count) {
    BucketCodec c = codecs(algorithm, count);
    c.encode_seconds *= factor;
    c.decode_seconds *= factor;
    return c;
  };
}

AlgorithmPlan plan_algorithm(const StepSetup &s, const std::string &algorithm, const CodecLookup &codecs) {
  if (s.ranks < 1) throw std::invalid_argument("plan: ranks must be at least 1");
  AlgorithmPlan plan;
  plan.algorithm = algorithm;
  StepInputs in;
  in.forward_seconds = s.compute->forward_seconds;
  in.backward_seconds = s.compute->backward_seconds;
  in.update_seconds = s.compute->update_seconds;
  in.contention = s.ranks > 1 ? s.contention : 1;
  const bool compresses = algorithm != "native" && algorithm != "ring" && algorithm != "ps";
  in.buckets = synchronizer_buckets(
      *s.model, s.bucket_bytes,
      compresses ? s.min_compress_bytes.value_or(train_default_min_compress_bytes(algorithm)) : 0);
  const bool any_codec = algorithm == "auto" || is_compressed(algorithm);
  for (PlanBucket &b : in.buckets) {
    std::vector<std::pair<std::string, BucketCodec>> codec_table;
    const auto count = static_cast<std::uint64_t>(b.bytes / 4);
    if (any_codec && s.ranks > 1 && !b.dense)
      for (const std::string &a : plan_algorithms())
        if (is_compressed(a) && (a == algorithm || (algorithm == "auto" && a != "topk" && a != "int4" && a != "bf16")))
          codec_table.emplace_back(a, codecs(a, count));
    const std::vector<std::pair<std::string, MeasuredTerms>> no_terms;
    const std::vector<std::pair<std::string, MeasuredTerms>> *terms = &no_terms;
    if (s.measured) {
      const auto at = s.measured->at_bytes.find(static_cast<std::uint64_t>(b.bytes));
      terms = s.measured->ranks == s.ranks && at != s.measured->at_bytes.end() ? &at->second
                                                                               : &s.measured->latency_only;
    }
    const BucketCost cost = bucket_cost(b.dense ? "native" : algorithm, b.bytes, s.ranks, s.link, codec_table,
                                        s.chunk_bytes, s.topk_fraction, *terms);
    const double family_overhead =
        cost.algorithm == "native" ? s.bucket_overhead : s.own_bucket_overhead.value_or(s.bucket_overhead);
    if (!(family_overhead >= 0) || !std::isfinite(family_overhead))
      throw std::invalid_argument("plan: the bucket overhead must be finite and >= 0");
    const auto own = s.algorithm_overhead.find(cost.algorithm);
    if (own != s.algorithm_overhead.end() && !std::isfinite(own->second))
      throw std::invalid_argument("plan: the bucket overhead of " + own->first + " must be finite");
    const double calibrated = own != s.algorithm_overhead.end() ? own->second : family_overhead;
    const double overhead = s.ranks > 1 ? std::max(calibrated, -cost.network_phase_seconds) : 0;
    b.codec_seconds = cost.codec_phase_seconds;
    b.network_seconds = cost.network_phase_seconds + overhead;
    const double seconds = cost.codec_phase_seconds + cost.network_phase_seconds;
    if (cost.cpu_seconds >= 0 && seconds > 0 && s.ranks > 1) {
      const double r = s.ranks_here, t = s.threads, c = s.cores, busy = cost.cpu_seconds / seconds;
      b.contention = std::max(1.0, r * (t + busy) / c) / std::max(1.0, r * t / c);
    }
    plan.network_seconds += cost.network_seconds + overhead;
    plan.codec_seconds += cost.codec_seconds;
    plan.wire_bytes += cost.wire_bytes;
    plan.bucket_algorithms.push_back(cost.algorithm);
    plan.bucket_bytes.push_back(b.bytes);
  }
  plan.step = predict_step(in);
  return plan;
}

Crossover crossover_bandwidth(const StepSetup &setup, const std::string &algorithm, const CodecLookup &codecs) {
  Crossover c;
  const auto gain = [&](double bandwidth) {  // > 0: algorithm faster than native
    StepSetup s = setup;
    s.link.bandwidth = bandwidth;
    return plan_algorithm(s, "native", codecs).step.step_seconds - plan_algorithm(s, algorithm, codecs).step.step_seconds;
  };
  double lo = 1e5, hi = 1e13;
  const double g_lo = gain(lo), g_hi = gain(hi);
  if ((g_lo > 0) == (g_hi > 0)) {
    c.note = g_lo > 0 ? "faster than native at every bandwidth from 0.8 Mbit/s to 80 Tbit/s"
                      : "never faster than native from 0.8 Mbit/s to 80 Tbit/s";
    c.wins_below = g_lo > 0;
    return c;
  }
  c.wins_below = g_lo > 0;
  for (int i = 0; i < 60; ++i) {  // bisection in log space, to 1e-5 relative
    const double mid = std::sqrt(lo * hi);
    if ((gain(mid) > 0) == (g_lo > 0))
      lo = mid;
    else
      hi = mid;
    if (hi / lo < 1 + 1e-5) break;
  }
  c.bandwidth = std::sqrt(lo * hi);
  return c;
}

}  // namespace dlk::perf
