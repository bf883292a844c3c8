#include "perf/plan/link_measurements.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace dlk::perf {
namespace {

[[noreturn]] void fail(const std::string &where, const std::string &rule) {
  throw std::invalid_argument("plan --allreduce: " + where + ": " + rule);
}

double number(const nlohmann::json &point, const std::string &where, const char *key, bool required) {
  const auto it = point.find(key);
  if (it == point.end()) {
    if (required) fail(where, std::string("has no member \"") + key + "\"");
    return -1;
  }
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 || it->get<double>() > 1e15)
    fail(where + "." + key, "must be a finite number >= 0");
  return it->get<double>();
}

}  // namespace

LinkMeasurements parse_link_measurements(std::string_view text, const LinkSpec &link, const CodecLookup &codecs,
                                         double chunk_bytes, double topk_fraction) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception &e) {
    fail("the document", std::string("does not parse: ") + e.what());
  }
  if (!doc.is_object() || !doc.contains("schema") || doc["schema"] != "dlk-perf/comm/1")
    fail("schema", "must be \"dlk-perf/comm/1\" (dlk-perf comm --json)");
  LinkMeasurements m;
  const auto ranks = doc.find("ranks");
  if (ranks == doc.end() || !ranks->is_number_integer() || *ranks < 2 || *ranks > (1 << 20))
    fail("ranks", "must be an integer >= 2: the terms are of an all-reduce between ranks");
  m.ranks = ranks->get<int>();
  const auto points = doc.find("points");
  if (points == doc.end() || !points->is_array()) fail("points", "must be an array");
  std::map<std::string, std::vector<double>> latencies;
  for (size_t i = 0; i < points->size(); ++i) {
    const nlohmann::json &p = (*points)[i];
    const std::string where = "points[" + std::to_string(i) + "]";
    if (!p.is_object() || !p.contains("algorithm") || !p["algorithm"].is_string())
      fail(where, "must be an object with a string \"algorithm\"");
    const std::string algorithm = p["algorithm"].get<std::string>();
    if (algorithm == "MPI_Allreduce" || algorithm == "auto") continue;
    const std::vector<std::string> &known = plan_algorithms();
    if (std::find(known.begin(), known.end(), algorithm) == known.end())
      fail(where + ".algorithm", "\"" + algorithm + "\" is not an algorithm dlk-perf plan knows");
    const double bytes = number(p, where, "bytes", true), seconds = number(p, where, "seconds", true);
    if (bytes < 4 || std::fmod(bytes, 4) != 0) fail(where + ".bytes", "must be a whole number of floats");
    MeasuredTerms terms;
    const double encode = number(p, where, "encode_seconds", false), decode = number(p, where, "decode_seconds", false);
    if (encode >= 0 && decode >= 0) terms.codec_seconds = encode + decode;
    terms.cpu_seconds = number(p, where, "cpu_seconds", false);
    // The model's seconds with the measured codec and no per-message term; what
    // the call took beyond them is spread over its messages. It may be less:
    // the link's latency comes from ring's probe, and with more ranks than
    // cores that probe pays a time slice a message (every rank polling at
    // once) which an algorithm that waits politely partly does not; then the
    // term is negative, down to no latency left in the call, so that the plan
    // gives the measured time at the measured sizes.
    std::vector<std::pair<std::string, BucketCodec>> codec;
    const auto count = static_cast<std::uint64_t>(bytes / 4);
    if (is_compressed(algorithm)) codec.emplace_back(algorithm, codecs(algorithm, count));
    const BucketCost model =
        bucket_cost(algorithm, bytes, m.ranks, link, codec, chunk_bytes, topk_fraction, {{algorithm, terms}});
    const double link_latency = model.network_seconds - model.wire_bytes / link.bandwidth;
    if (model.messages > 0)
      terms.message_latency =
          std::max(-link_latency, seconds - model.codec_phase_seconds - model.network_phase_seconds) / model.messages;
    latencies[algorithm].push_back(terms.message_latency);
    m.at_bytes[static_cast<std::uint64_t>(bytes)].emplace_back(algorithm, terms);
  }
  for (auto &[algorithm, values] : latencies) {
    std::sort(values.begin(), values.end());
    MeasuredTerms terms;
    terms.message_latency = values[values.size() / 2];
    m.latency_only.emplace_back(algorithm, terms);
  }
  return m;
}

}  // namespace dlk::perf
