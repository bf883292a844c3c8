#include "backends/fpga_sim/accelerator_config.hpp"

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "core/error.hpp"

namespace dlk::fpga_sim {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string &source, const std::string &key, const std::string &rule) {
  throw core::Error(DLK_STATUS_INVALID_ARGUMENT,
                    "fpga_sim config '" + source + "': key '" + key + "': " + rule);
}

// Walks one JSON object: every key must be asked for exactly once, so that a key
// left over at the end is one this format does not have (a typo, most often).
class ObjectReader {
 public:
  ObjectReader(const json &object, std::string path, std::string source)
      : object_(object), path_(std::move(path)), source_(std::move(source)) {
    if (!object_.is_object()) fail(source_, where(), "must be an object");
  }

  const json &take(const std::string &key) {
    const auto it = object_.find(key);
    if (it == object_.end()) fail(source_, where(key), "is required and missing");
    taken_.push_back(key);
    return *it;
  }

  ObjectReader object(const std::string &key) { return ObjectReader(take(key), where(key), source_); }

  int64_t integer(const std::string &key, int64_t lo, int64_t hi) {
    const json &v = take(key);
    const std::string rule = "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    if (!v.is_number_integer()) fail(source_, where(key), rule);
    const int64_t i = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)
                          ? INT64_MAX
                          : v.get<int64_t>();
    if (i < lo || i > hi) fail(source_, where(key), rule + ", not " + v.dump());
    return i;
  }

  // A number greater than zero (or at least zero when zero_ok).
  double number(const std::string &key, bool zero_ok) {
    const json &v = take(key);
    const std::string rule = zero_ok ? "must be a number >= 0" : "must be a number > 0";
    if (!v.is_number()) fail(source_, where(key), rule);
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || (!zero_ok && d == 0)) fail(source_, where(key), rule + ", not " + v.dump());
    return d;
  }

  std::string string(const std::string &key) {
    const json &v = take(key);
    if (!v.is_string()) fail(source_, where(key), "must be a string");
    return v.get<std::string>();
  }

  void finish() const {
    for (const auto &item : object_.items()) {
      bool known = false;
      for (const auto &t : taken_) known = known || t == item.key();
      if (!known) fail(source_, where(item.key()), "is not a key of this format");
    }
  }

  std::string where(const std::string &key = "") const {
    if (key.empty()) return path_.empty() ? "(top level)" : path_;
    return path_.empty() ? key : path_ + "." + key;
  }
  const std::string &source() const { return source_; }

 private:
  const json &object_;
  std::string path_, source_;
  std::vector<std::string> taken_;
};

Dataflow parse_dataflow(ObjectReader &array) {
  const std::string d = array.string("dataflow");
  if (d == "os") return Dataflow::output_stationary;
  if (d == "ws") return Dataflow::weight_stationary;
  if (d == "is") return Dataflow::input_stationary;
  fail(array.source(), array.where("dataflow"), "must be one of os, ws, is, not '" + d + "'");
}

void parse_dtypes(const json &list, const std::string &source, AcceleratorConfig &c) {
  const std::string rule = "must be a non-empty list of distinct names from int8, bf16, fp16, fp32";
  if (!list.is_array() || list.empty()) fail(source, "dtypes", rule);
  for (const auto &item : list) {
    if (!item.is_string()) fail(source, "dtypes", rule);
    const std::string t = item.get<std::string>();
    bool *flag = t == "int8" ? &c.int8 : t == "bf16" ? &c.bf16 : t == "fp16" ? &c.fp16
               : t == "fp32" ? &c.fp32 : nullptr;
    if (!flag) fail(source, "dtypes", rule + "; '" + t + "' is none of them");
    if (*flag) fail(source, "dtypes", rule + "; '" + t + "' appears twice");
    *flag = true;
  }
}

constexpr int64_t kMaxArraySide = 65536;
constexpr int64_t kMaxBufferKib = int64_t(1) << 30;  // 1 TiB: far beyond any chip

}  // namespace

const char *dataflow_name(Dataflow d) {
  switch (d) {
    case Dataflow::weight_stationary: return "ws";
    case Dataflow::input_stationary: return "is";
    default: return "os";
  }
}

int64_t AcceleratorConfig::widest_operand_bytes() const { return fp32 ? 4 : (bf16 || fp16) ? 2 : 1; }

AcceleratorConfig builtin_accelerator() {
  AcceleratorConfig c;
  c.name = "edge 32x32";
  c.source = "built-in";
  c.rows = c.cols = 32;
  c.dataflow = Dataflow::output_stationary;
  c.clock_hz = 1e9;
  c.input_buffer_bytes = c.weight_buffer_bytes = 256 * 1024;
  c.accumulator_buffer_bytes = 64 * 1024;
  c.dram_bytes_per_second = 16e9;
  c.dram_latency_seconds = 100e-9;
  c.int8 = c.bf16 = c.fp16 = c.fp32 = true;
  c.vector_lanes = 32;
  c.vector_clock_hz = 1e9;
  return c;
}

void check_accelerator(const AcceleratorConfig &c) {
  if (c.rows < 1 || c.rows > kMaxArraySide)
    fail(c.source, "array.rows", "must be an integer from 1 to " + std::to_string(kMaxArraySide));
  if (c.cols < 1 || c.cols > kMaxArraySide)
    fail(c.source, "array.cols", "must be an integer from 1 to " + std::to_string(kMaxArraySide));
  if (!(c.clock_hz > 0) || !std::isfinite(c.clock_hz)) fail(c.source, "array.clock_mhz", "must be a number > 0");
  if (!(c.dram_bytes_per_second > 0)) fail(c.source, "dram.bandwidth_gb_per_s", "must be a number > 0");
  if (!(c.dram_latency_seconds >= 0)) fail(c.source, "dram.latency_ns", "must be a number >= 0");
  if (!(c.int8 || c.bf16 || c.fp16 || c.fp32)) fail(c.source, "dtypes", "must name at least one type");
  if (c.vector_lanes < 1) fail(c.source, "vector_unit.lanes", "must be an integer >= 1");
  if (!(c.vector_clock_hz > 0) || !std::isfinite(c.vector_clock_hz))
    fail(c.source, "vector_unit.clock_mhz", "must be a number > 0");
  // Double buffering: each buffer holds two rows x cols tiles of its operand.
  const int64_t tile = c.rows * c.cols;
  const auto need = [&](const char *key, int64_t have, int64_t element_bytes) {
    const int64_t bytes = 2 * tile * element_bytes;
    if (have < bytes)
      fail(c.source, key, "holds " + std::to_string(have) + " bytes, too small for two " +
                              std::to_string(c.rows) + "x" + std::to_string(c.cols) +
                              " tiles (double buffering) of " + std::to_string(element_bytes) +
                              "-byte elements: needs " + std::to_string(bytes));
  };
  need("buffers_kib.inputs", c.input_buffer_bytes, c.widest_operand_bytes());
  need("buffers_kib.weights", c.weight_buffer_bytes, c.widest_operand_bytes());
  need("buffers_kib.accumulators", c.accumulator_buffer_bytes, 4);
}

AcceleratorConfig parse_accelerator(const std::string &text, const std::string &source) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error &e) {
    throw core::Error(DLK_STATUS_INVALID_ARGUMENT,
                      "fpga_sim config '" + source + "': not valid JSON: " + e.what());
  }
  AcceleratorConfig c;
  c.source = source;
  ObjectReader top(doc, "", source);
  c.name = top.string("name");

  ObjectReader array = top.object("array");
  c.rows = array.integer("rows", 1, kMaxArraySide);
  c.cols = array.integer("cols", 1, kMaxArraySide);
  c.dataflow = parse_dataflow(array);
  c.clock_hz = array.number("clock_mhz", false) * 1e6;
  array.finish();

  ObjectReader buffers = top.object("buffers_kib");
  c.input_buffer_bytes = buffers.integer("inputs", 1, kMaxBufferKib) * 1024;
  c.weight_buffer_bytes = buffers.integer("weights", 1, kMaxBufferKib) * 1024;
  c.accumulator_buffer_bytes = buffers.integer("accumulators", 1, kMaxBufferKib) * 1024;
  buffers.finish();

  ObjectReader dram = top.object("dram");
  c.dram_bytes_per_second = dram.number("bandwidth_gb_per_s", false) * 1e9;
  c.dram_latency_seconds = dram.number("latency_ns", true) * 1e-9;
  dram.finish();

  parse_dtypes(top.take("dtypes"), source, c);

  ObjectReader vector = top.object("vector_unit");
  c.vector_lanes = vector.integer("lanes", 1, kMaxArraySide * kMaxArraySide);
  c.vector_clock_hz = vector.number("clock_mhz", false) * 1e6;
  vector.finish();
  top.finish();

  check_accelerator(c);
  return c;
}

AcceleratorConfig load_accelerator(const std::string &path) {
  std::ifstream in(path);
  if (!in)
    throw core::Error(DLK_STATUS_INVALID_ARGUMENT,
                      "fpga_sim config '" + path + "': cannot be opened for reading");
  std::stringstream text;
  text << in.rdbuf();
  return parse_accelerator(text.str(), path);
}

}  // namespace dlk::fpga_sim
