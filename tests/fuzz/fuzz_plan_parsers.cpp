// libFuzzer target: the parsers of what `dlk-perf plan` reads from outside: a
// model as dlk-train/describe/1 JSON (a file a user names), a --link string and
// a --compute string, a dlk-perf comm JSON (--allreduce), a dlk-train run
// JSON (--layer-times) and an --algorithm-overhead list. The first byte picks the parser, the rest is its text.
// Bad input must be refused with std::invalid_argument (anything else escapes
// and fails the run); an accepted model must hold together (its parameters,
// gradients in backward order adding up to the layers') and write back as JSON
// that parses to the same model; an accepted link or roof is positive and
// finite; accepted measured latencies are finite, layer times finite and >= 0; accepted
// overheads are finite and name algorithms the plan knows.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "perf/plan/algorithm_overheads.hpp"
#include "perf/plan/allreduce_model.hpp"
#include "perf/plan/compute_roof.hpp"
#include "perf/plan/link_measurements.hpp"
#include "perf/plan/link_spec.hpp"
#include "perf/plan/plan_model.hpp"
#include "perf/plan/train_timeline.hpp"

namespace {

using namespace dlk::perf;

void expect(bool condition, const char *what) {
  if (condition) return;
  std::fprintf(stderr, "fuzz_plan_parsers: %s\n", what);
  __builtin_trap();
}

void model(const std::string &text) {
  PlanModel m;
  try {
    m = parse_model_json(text);
  } catch (const std::invalid_argument &) {
    return;
  }
  double parameters = 0, gradients = 0;
  for (const PlanLayer &l : m.layers) parameters += static_cast<double>(l.parameters);
  for (const PlanGradient &g : m.gradients) gradients += static_cast<double>(g.elements);
  expect(parameters == static_cast<double>(m.parameters), "accepted model's parameters do not add up");
  expect(gradients == parameters, "accepted model's gradients do not cover its parameters");
  const PlanModel back = parse_model_json(model_json(m).dump());
  expect(back.layers.size() == m.layers.size() && back.gradients.size() == m.gradients.size() &&
              back.parameters == m.parameters && back.forward_flop() == m.forward_flop(),
          "model JSON does not read back as the same model");
}

void link(const std::string &text) {
  try {
    const LinkSpec l = parse_link(text);
    expect(std::isfinite(l.bandwidth) && l.bandwidth >= 1 && std::isfinite(l.latency) && l.latency > 0,
            "accepted link is not positive and finite");
  } catch (const std::invalid_argument &) {
  }
}

void roof(const std::string &text) {
  try {
    const ComputeRoof r = parse_compute_roof(text);
    expect(std::isfinite(r.peak) && r.peak > 0 && std::isfinite(r.bandwidth) && r.bandwidth > 0,
            "accepted roof is not positive and finite");
  } catch (const std::invalid_argument &) {
  }
}

// A fixed codec (a quarter of the bucket, 1 GB/s) stands for the one measured here.
BucketCodec fixed_codec(const std::string &, std::uint64_t count) {
  const double bytes = 4.0 * static_cast<double>(count);
  return {bytes / 4, bytes / 1e9, bytes / 1e9};
}

void measurements(const std::string &text) {
  try {
    const LinkMeasurements m = parse_link_measurements(text, LinkSpec{"fuzz", 1e9, 1e-5}, fixed_codec, 1 << 20, 0.01);
    expect(m.ranks >= 2, "accepted measurements of fewer than 2 ranks");
    for (const auto &[bytes, terms] : m.at_bytes)
      for (const auto &[name, t] : terms)
        expect(std::isfinite(t.message_latency), "a measured latency is not finite");
  } catch (const std::invalid_argument &) {
  }
}

void timeline(const std::string &text) {
  static const PlanModel lenet5 = builtin_model("lenet5");
  try {
    const ComputeTimes t = timeline_times(lenet5, text);
    expect(t.forward_seconds.size() == lenet5.layers.size() && std::isfinite(t.total()) && t.total() >= 0,
           "accepted layer times are not one finite time >= 0 per layer");
  } catch (const std::invalid_argument &) {
  }
}

void overheads(const std::string &text) {
  try {
    const std::vector<std::string> &known = plan_algorithms();
    for (const auto &[name, seconds] : parse_algorithm_overheads(text))
      expect(name != "auto" && std::find(known.begin(), known.end(), name) != known.end() &&
                 std::isfinite(seconds) && std::fabs(seconds) < 1000,
             "an accepted overhead names no algorithm or is not finite");
  } catch (const std::invalid_argument &) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  switch (data[0] % 6) {
    case 0: model(text); break;
    case 1: link(text); break;
    case 2: roof(text); break;
    case 3: measurements(text); break;
    case 4: timeline(text); break;
    default: overheads(text); break;
  }
  return 0;
}
