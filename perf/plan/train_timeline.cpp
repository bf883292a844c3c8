#include "perf/plan/train_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlk::perf {
namespace {

[[noreturn]] void fail(const std::string &where, const std::string &rule) {
  throw std::invalid_argument("plan --layer-times: " + where + ": " + rule);
}

double seconds(const nlohmann::json &j, const std::string &where, const char *key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
      it->get<double>() > 1e6)
    fail(where + "." + key, "must be a finite number of seconds >= 0");
  return it->get<double>();
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

ComputeTimes timeline_times(const PlanModel &model, std::string_view text) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception &e) {
    fail("the document", std::string("does not parse: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "dlk-train/run/1")
    fail("schema", "must be \"dlk-train/run/1\" (dlk-train --json)");
  const auto timeline = doc.find("timeline");
  if (timeline == doc.end() || !timeline->is_array() || timeline->empty())
    fail("timeline", "must be a non-empty array (run dlk-train with --timeline-steps)");
  const size_t layers = model.layers.size();
  std::vector<std::vector<double>> forward(layers), backward(layers);
  std::vector<double> update;
  // The first sampled step warms caches and allocations: left out when there are others.
  const size_t first = timeline->size() > 1 ? 1 : 0;
  for (size_t s = first; s < timeline->size(); ++s) {
    const nlohmann::json &step = (*timeline)[s];
    const std::string where = "timeline[" + std::to_string(s) + "]";
    const auto entries = step.find("layers");
    if (!step.is_object() || entries == step.end() || !entries->is_array() || entries->empty())
      fail(where + ".layers", "must be a non-empty array");
    std::vector<double> f(layers, 0.0), b(layers, 0.0);
    double first_forward = 1e30, last_forward_end = 0, last_backward_start = 0;
    size_t first_index = layers, last_index = 0;
    for (size_t i = 0; i < entries->size(); ++i) {
      const nlohmann::json &l = (*entries)[i];
      const std::string at = where + ".layers[" + std::to_string(i) + "]";
      if (!l.is_object() || !l.contains("name") || !l["name"].is_string()) fail(at, "must have a string \"name\"");
      const std::string name = l["name"].get<std::string>();
      size_t k = layers;
      for (size_t j = 0; j < layers; ++j)
        if (model.layers[j].name == name) k = j;
      if (k == layers) fail(at + ".name", "\"" + name + "\" is not a layer of " + model.name);
      const double fs = seconds(l, at, "forward_start"), fe = seconds(l, at, "forward_end"),
                   bs = seconds(l, at, "backward_start"), be = seconds(l, at, "backward_end");
      f[k] = std::max(0.0, fe - fs);
      b[k] = std::max(0.0, be - bs);
      if (fs < first_forward) {
        first_forward = fs;
        first_index = k;
      }
      if (fe >= last_forward_end) {
        last_forward_end = fe;
        last_index = k;
        last_backward_start = bs;
      }
    }
    f[first_index] += first_forward;                                   // gathering the batch
    f[last_index] += std::max(0.0, last_backward_start - last_forward_end);  // the loss
    for (size_t k = 0; k < layers; ++k) {
      forward[k].push_back(f[k]);
      backward[k].push_back(b[k]);
    }
    update.push_back(std::max(0.0, seconds(step, where, "update_end") - seconds(step, where, "wait_end")));
  }
  ComputeTimes t;
  t.source = "dlk-train's timeline";
  for (size_t k = 0; k < layers; ++k) {
    t.forward_seconds.push_back(median_of(forward[k]));
    t.backward_seconds.push_back(median_of(backward[k]));
  }
  t.update_seconds = median_of(update);
  return t;
}

}  // namespace dlk::perf
