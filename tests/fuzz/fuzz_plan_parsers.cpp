// libFuzzer target: the parsers of what `dlk-perf plan` reads from outside: a
// model as dlk-train/describe/1 JSON (a file a user names), a --link string and
// a --compute string. The first byte picks the parser, the rest is its text.
// Bad input must be refused with std::invalid_argument (anything else escapes
// and fails the run); an accepted model must hold together (its parameters,
// gradients in backward order adding up to the layers') and write back as JSON
// that parses to the same model; an accepted link or roof is positive and finite.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "perf/plan/compute_roof.hpp"
#include "perf/plan/link_spec.hpp"
#include "perf/plan/plan_model.hpp"

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char *>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: model(text); break;
    case 1: link(text); break;
    default: roof(text); break;
  }
  return 0;
}
