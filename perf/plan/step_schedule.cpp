#include "perf/plan/step_schedule.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace dlk::perf {
namespace {

void check_time(double t, const char *what) {
  if (!std::isfinite(t) || t < 0) throw std::invalid_argument(std::string("predict_step: ") + what + " must be finite and >= 0");
}

}  // namespace

int allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return 1;
}

double default_contention(int threads) {
  return std::max(1.0, static_cast<double>(threads + 1) / allowed_cpus());
}

std::uint64_t train_default_bucket_bytes(const PlanModel &model) {
  std::uint64_t bytes = 0;
  for (const PlanGradient &g : model.gradients) bytes += 4 * static_cast<std::uint64_t>(g.elements);
  return std::clamp<std::uint64_t>(bytes / 4, std::uint64_t(64) << 10, std::uint64_t(25) << 20);
}

std::uint64_t train_default_min_compress_bytes(const std::string &algorithm) {
  return algorithm == "onebit" || algorithm == "topk" ? 16384 : 0;
}

std::vector<PlanBucket> synchronizer_buckets(const PlanModel &model, std::uint64_t bucket_bytes,
                                             std::uint64_t min_compress_bytes) {
  std::vector<PlanBucket> kinds[2];  // compressed, dense
  std::uint64_t fused[2] = {0, 0};   // elements in the last bucket of each
  for (const PlanGradient &g : model.gradients) {
    const std::uint64_t count = static_cast<std::uint64_t>(g.elements);
    const int dense = 4 * count < min_compress_bytes ? 1 : 0;
    std::vector<PlanBucket> &buckets = kinds[dense];
    // comm/synchronizer.cpp's rule: a new bucket when the last one holds something
    // and this gradient would take it past the cap.
    if (buckets.empty() || (fused[dense] > 0 && 4 * (fused[dense] + count) > bucket_bytes)) {
      buckets.emplace_back();
      buckets.back().dense = dense == 1;
      fused[dense] = 0;
    }
    fused[dense] += count;
    PlanBucket &b = buckets.back();
    b.bytes = 4.0 * static_cast<double>(fused[dense]);
    for (std::size_t i = 0; i < model.layers.size(); ++i)
      if (model.layers[i].name == g.layer) b.ready_layer = i;  // backward order: the last one is the earliest
  }
  // One background thread runs both synchronizers' buckets as backward completes
  // them: the later a bucket's layer in forward order, the sooner.
  std::vector<PlanBucket> buckets = std::move(kinds[0]);
  buckets.insert(buckets.end(), kinds[1].begin(), kinds[1].end());
  std::stable_sort(buckets.begin(), buckets.end(),
                   [](const PlanBucket &a, const PlanBucket &b) { return a.ready_layer > b.ready_layer; });
  return buckets;
}

StepPrediction predict_step(const StepInputs &in) {
  const std::size_t layers = in.forward_seconds.size();
  if (in.backward_seconds.size() != layers)
    throw std::invalid_argument("predict_step: forward and backward times differ in length");
  if (!(in.contention >= 1) || !std::isfinite(in.contention))
    throw std::invalid_argument("predict_step: contention must be >= 1");
  StepPrediction p;
  double forward = 0;
  for (std::size_t i = 0; i < layers; ++i) {
    check_time(in.forward_seconds[i], "a forward time");
    check_time(in.backward_seconds[i], "a backward time");
    forward += in.forward_seconds[i];
    p.compute_seconds += in.forward_seconds[i] + in.backward_seconds[i];
  }
  check_time(in.update_seconds, "the update time");
  p.compute_seconds += in.update_seconds;
  for (const PlanBucket &b : in.buckets) {
    if (b.ready_layer >= layers) throw std::invalid_argument("predict_step: a bucket's layer is not there");
    check_time(b.codec_seconds, "a bucket's codec time");
    check_time(b.network_seconds, "a bucket's network time");
    if (b.contention != 0 && !(b.contention >= 1 && std::isfinite(b.contention)))
      throw std::invalid_argument("predict_step: a bucket's contention must be 0 or >= 1");
    p.codec_seconds += b.codec_seconds;
    p.network_seconds += b.network_seconds;
  }

  // Backward as events: the compute threads work through the layers last to
  // first, then through the update, a bucket's parameters as soon as that
  // bucket has ended (dlk-train's wait_bucket, in bucket order; with no bucket,
  // every parameter after backward); the background thread through the buckets
  // in order, each its codec work then its wire time. Rates: 1, or 1 /
  // contention for CPU work while both are busy.
  const double inf = std::numeric_limits<double>::infinity();
  const std::size_t updates = std::max<std::size_t>(1, in.buckets.size());
  double bucket_bytes = 0;
  for (const PlanBucket &b : in.buckets) bucket_bytes += b.bytes;
  // The update is SGD over each parameter: a bucket's share is its share of the parameters.
  const auto update_share = [&](std::size_t k) {
    return in.buckets.empty() || bucket_bytes <= 0 ? in.update_seconds
                                                   : in.update_seconds * in.buckets[k].bytes / bucket_bytes;
  };
  double t = 0;
  std::size_t layer = layers;  // layers still to run: [0, layer)
  double compute_left = layers > 0 ? in.backward_seconds[layers - 1] : 0;
  std::size_t released = 0;  // buckets handed to the thread
  std::size_t current = 0;   // the bucket on the thread (== released: none)
  bool on_codec = true;
  double comm_left = 0;
  bool backward_done = layers == 0;
  std::size_t updated = 0;    // buckets whose parameters are updated
  bool updating = false;      // the compute threads are on update `updated`
  // Releases every bucket whose gradients are all ready.
  const auto release = [&](std::size_t finished_layer) {
    while (released < in.buckets.size() && in.buckets[released].ready_layer >= finished_layer) ++released;
  };
  const auto start_bucket = [&] {
    if (current < released && comm_left <= 0) {
      on_codec = true;
      comm_left = in.buckets[current].codec_seconds;
    }
  };
  // After backward, the next update once its bucket has ended.
  const auto start_update = [&] {
    if (backward_done && !updating && updated < updates && (in.buckets.empty() || updated < current)) {
      updating = true;
      compute_left = update_share(updated);
    }
  };
  if (backward_done) release(0);
  start_bucket();
  start_update();
  for (int guard = 0; guard < 10000000; ++guard) {
    const bool computing = !backward_done || updating, communicating = current < released;
    if (!computing && !communicating && released == in.buckets.size() && updated == updates) break;
    const double contention =
        !communicating ? 1 : in.buckets[current].contention > 0 ? in.buckets[current].contention : in.contention;
    const double compute_rate = 1 / contention;
    const double comm_rate = on_codec && computing ? 1 / contention : 1;
    const double dt_compute = computing ? compute_left / compute_rate : inf;
    const double dt_comm = communicating ? comm_left / comm_rate : inf;
    const double dt = std::min(dt_compute, dt_comm);
    if (!computing) (on_codec ? p.exposed_codec_seconds : p.exposed_network_seconds) += dt;
    t += dt;
    if (computing) compute_left = dt == dt_compute ? 0 : compute_left - dt * compute_rate;
    if (communicating) comm_left = dt == dt_comm ? 0 : comm_left - dt * comm_rate;
    if (computing && dt == dt_compute) {
      if (updating) {
        updating = false;
        ++updated;
      } else {
        --layer;
        release(layer);
        if (layer == 0) {
          backward_done = true;
          p.backward_end_seconds = forward + t;
        } else {
          compute_left = in.backward_seconds[layer - 1];
        }
      }
    }
    if (communicating && dt == dt_comm) {
      if (on_codec) {
        on_codec = false;
        comm_left = in.buckets[current].network_seconds;
      }
      if (!on_codec && comm_left <= 0) {
        ++current;
        comm_left = 0;
      }
    }
    start_bucket();
    start_update();
  }
  if (layers == 0) p.backward_end_seconds = forward;
  // Whatever the step took beyond compute alone and the exposed wait: compute
  // (backward, the update) slowed by the background thread beside it.
  p.step_seconds = forward + t;
  p.contention_seconds = std::max(0.0, p.step_seconds - p.compute_seconds - p.exposed_network_seconds -
                                           p.exposed_codec_seconds);  // >= 0 but for rounding
  return p;
}

}  // namespace dlk::perf
