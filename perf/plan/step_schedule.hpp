// One training step as dlk-train runs it on one rank: forward, then backward
// from the last layer to the first; after each layer its gradients are ready,
// and a bucket (comm/synchronizer.cpp: gradients fused in registration order,
// which is backward order, a new bucket when the next gradient would pass the
// byte cap) is handed to the communicator's background thread once all of its
// gradients are ready; buckets go one at a time, in order, on that thread,
// overlapping the rest of backward. The update (SGD with momentum) follows
// backward a bucket at a time: each bucket's parameters as soon as that bucket
// has ended (dlk-train's wait_bucket), beside the later buckets' all-reduce,
// its share of the update its share of the parameters. The step ends when the
// last bucket's parameters are updated.
//
// While the background thread works, it shares the cores with the compute
// threads: compute and the codec then run `contention` times slower (the
// network part waits on the wire, at full speed). With T compute threads on C
// cores the default is max(1, (T + 1) / C): one more busy thread (Open MPI
// polls while it waits) among the same cores.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perf/plan/plan_model.hpp"

namespace dlk::perf {

struct PlanBucket {
  double bytes = 0;
  std::size_t ready_layer = 0;  // the forward index of the layer whose backward completes it
  double codec_seconds = 0;
  double network_seconds = 0;
  // How much slower compute runs while this bucket is on the background thread
  // (its codec too, while backward goes on); 0: StepInputs::contention.
  double contention = 0;
  bool dense = false;  // its gradients are under min_compress_bytes: all-reduced native
};

// dlk-train's bucket cap when --bucket-mb is 0 (its default): a quarter of the
// model's gradient bytes, from 64 KiB to 25 MiB (examples/train/trainer.cpp).
std::uint64_t train_default_bucket_bytes(const PlanModel &model);

// dlk-train's --min-compress-bytes when not given (examples/train/options.cpp):
// onebit's and topk's gradients under 16 KiB travel uncompressed; 0 otherwise.
std::uint64_t train_default_min_compress_bytes(const std::string &algorithm);

// The synchronizer's buckets of `model`'s gradients at `bucket_bytes` (bytes,
// ready_layer set; costs 0). With min_compress_bytes, the gradients under it go
// to buckets of their own (dense) as dlk-train's second synchronizer makes
// them, and the two kinds are merged in the order backward completes them.
std::vector<PlanBucket> synchronizer_buckets(const PlanModel &model, std::uint64_t bucket_bytes,
                                             std::uint64_t min_compress_bytes = 0);

struct StepInputs {
  std::vector<double> forward_seconds, backward_seconds;  // per layer, forward order
  double update_seconds = 0;  // every parameter's; split over the buckets by their bytes
  std::vector<PlanBucket> buckets;
  double contention = 1;  // >= 1
};

struct StepPrediction {
  double step_seconds = 0;
  double compute_seconds = 0;     // forward + backward + update, alone on the cores
  double contention_seconds = 0;  // what sharing the cores with the background thread adds
  double exposed_network_seconds = 0;  // the background thread's wire time after backward
  double exposed_codec_seconds = 0;    // ... and its codec time after backward
  double network_seconds = 0;          // all wire time of the step
  double codec_seconds = 0;            // all codec time of the step (alone on a core)
  double backward_end_seconds = 0;     // from the start of the step
};

// The hardware threads this process may run on (sched_getaffinity), at least 1.
int allowed_cpus();
// max(1, (threads + 1) / allowed_cpus()): the default contention.
double default_contention(int threads);

// Throws std::invalid_argument when the per-layer vectors differ in length,
// a time is negative or not finite, a contention < 1 (a bucket's: not 0) or a
// bucket's layer is not there.
StepPrediction predict_step(const StepInputs &inputs);

}  // namespace dlk::perf
