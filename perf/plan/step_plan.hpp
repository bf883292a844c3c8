// The plan of one step per algorithm: the model's compute times, its
// synchronizer buckets priced by allreduce_model.hpp on the link, scheduled by
// step_schedule.hpp; and where each codec's step crosses native's as the link's
// bandwidth falls (the crossover).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "perf/plan/allreduce_model.hpp"
#include "perf/plan/layer_times.hpp"
#include "perf/plan/link_spec.hpp"
#include "perf/plan/plan_model.hpp"
#include "perf/plan/step_schedule.hpp"

namespace dlk::perf {

// A codec's cost for a bucket of `count` floats (CodecCosts::at, or a fixed table in tests).
using CodecLookup = std::function<BucketCodec(const std::string &algorithm, std::uint64_t count)>;

// A rank's codec runs on its one background thread and is timed alone on an
// idle core: with ranks_here ranks on `cores` cores the ranks' codec threads
// time-share the cores as their compute does, each at cores / ranks_here of a
// core: max(1, ranks_here / cores). Throws std::invalid_argument below 1.
double codec_time_sharing(int ranks_here, int cores);
// codecs with their encode and decode seconds times `factor` (the message unchanged).
CodecLookup time_shared(CodecLookup codecs, double factor);

// Terms of the all-reduce measured on the link (perf/plan/link_measurements.hpp).
struct LinkMeasurements {
  int ranks = 0;  // the rank count they were measured with
  // Per bucket size (bytes) measured: every algorithm's terms there.
  std::map<std::uint64_t, std::vector<std::pair<std::string, MeasuredTerms>>> at_bytes;
  // Per algorithm, its per-message latency alone (median over the sizes): for
  // sizes and rank counts that were not measured.
  std::vector<std::pair<std::string, MeasuredTerms>> latency_only;
};

struct StepSetup {
  const PlanModel *model = nullptr;
  const ComputeTimes *compute = nullptr;
  int ranks = 2;
  LinkSpec link;
  std::uint64_t bucket_bytes = 25u << 20;
  double contention = 1;
  double chunk_bytes = 1 << 20;  // the compressed algorithms' chunk (allreduce_model.hpp)
  double topk_fraction = 0.01;
  const LinkMeasurements *measured = nullptr;  // none: the alpha-beta model alone
  // Who shares this machine's cores, for the contention of a bucket whose CPU
  // time was measured: max(1, R (T + busy) / C) / max(1, R T / C), busy the
  // bucket's measured CPU seconds over its seconds.
  int ranks_here = 1, threads = 1, cores = 1;
  // Seconds each bucket's all-reduce takes in training beyond the same call
  // measured alone (ranks > 1): the background thread's wait for a core held
  // by compute threads and for the peer ranks, which arrive apart. Added to
  // the bucket's network phase (the thread waits, it does not compute).
  // Calibrated per family, since the waits differ: bucket_overhead for native
  // (Open MPI's MPI_Iallreduce, whose rounds progress only while the waiting
  // thread polls), own_bucket_overhead for dlk's own algorithms (ring, ps, the
  // codecs, topk; auto's buckets by what it picks), which wait politely in
  // comm/polite_wait.cpp; none: bucket_overhead for every algorithm.
  double bucket_overhead = 0;
  std::optional<double> own_bucket_overhead;
  // The overhead of one algorithm calibrated on a run of that algorithm,
  // replacing its family's (a bucket of auto's by what it picks). It may be
  // negative: with more ranks than cores the all-reduce measured alone, every
  // rank polling at once, pays a scheduler time slice per message that the
  // ranks of a training step, arriving between compute slices, do not. It
  // never takes a bucket's network phase below zero.
  std::map<std::string, double> algorithm_overhead;
  // dlk-train's --min-compress-bytes for every algorithm but native, ring and
  // ps; none: its default (train_default_min_compress_bytes).
  std::optional<std::uint64_t> min_compress_bytes;
};

struct AlgorithmPlan {
  std::string algorithm;
  StepPrediction step;
  double wire_bytes = 0;  // a rank's bytes on the wire per step
  // All wire time and all codec work of the step; the schedule's network and
  // codec figures are what is left of them after the chunks' pipelining.
  double network_seconds = 0, codec_seconds = 0;
  std::vector<std::string> bucket_algorithms;  // what each bucket runs (auto: its choice)
  std::vector<double> bucket_bytes;            // and its bytes (dense buckets apart: synchronizer_buckets)
};

// Throws std::invalid_argument for ranks < 1 or an unknown algorithm.
AlgorithmPlan plan_algorithm(const StepSetup &setup, const std::string &algorithm, const CodecLookup &codecs);

// The link bandwidth (bytes/s, latency held) below which `algorithm` gives a
// shorter step than native, searched over [1e5, 1e13] B/s; none when one of
// the two is faster over the whole range. below_wins says which side the
// algorithm wins on (true: below the crossover, as a codec should).
struct Crossover {
  std::optional<double> bandwidth;
  bool wins_below = true;
  std::string note;  // when there is none: "never faster", "faster at every bandwidth"
};
Crossover crossover_bandwidth(const StepSetup &setup, const std::string &algorithm, const CodecLookup &codecs);

}  // namespace dlk::perf
