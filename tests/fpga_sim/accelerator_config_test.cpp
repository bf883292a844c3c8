// The accelerator description: both shipped files, the built-in default, and
// every error path (each names the key and the file).
#include <catch2/catch.hpp>
#include <string>

#include "backends/fpga_sim/accelerator_config.hpp"
#include "core/error.hpp"

using dlk::fpga_sim::AcceleratorConfig;
using dlk::fpga_sim::Dataflow;
using dlk::fpga_sim::parse_accelerator;

namespace {

const std::string kSource = "test.json";

// A valid description with one part replaced: `replace` maps a whole
// `"key": value` text of the valid one to its substitute.
std::string valid_with(const std::string &from = "", const std::string &to = "") {
  std::string text = R"({
  "name": "t",
  "array": { "rows": 4, "cols": 4, "dataflow": "ws", "clock_mhz": 100 },
  "buffers_kib": { "inputs": 8, "weights": 8, "accumulators": 8 },
  "dram": { "bandwidth_gb_per_s": 2, "latency_ns": 10 },
  "dtypes": ["int8", "fp32"],
  "vector_unit": { "lanes": 4, "clock_mhz": 100 }
})";
  if (!from.empty()) {
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  }
  return text;
}

// Parsing fails, and the message names the file and `key`, and contains `rule`.
void expect_error(const std::string &text, const std::string &key, const std::string &rule) {
  INFO(text);
  try {
    parse_accelerator(text, kSource);
    FAIL("parsed");
  } catch (const dlk::core::Error &e) {
    CHECK(e.status() == DLK_STATUS_INVALID_ARGUMENT);
    const std::string message = e.what();
    CHECK_THAT(message, Catch::StartsWith("fpga_sim config 'test.json': key '" + key + "': "));
    CHECK_THAT(message, Catch::Contains(rule));
  }
}

}  // namespace

TEST_CASE("fpga_sim config: a valid description is read field by field", "[fpga_sim][config]") {
  const AcceleratorConfig c = parse_accelerator(valid_with(), kSource);
  CHECK(c.name == "t");
  CHECK(c.source == kSource);
  CHECK(c.rows == 4);
  CHECK(c.cols == 4);
  CHECK(c.dataflow == Dataflow::weight_stationary);
  CHECK(c.clock_hz == 100e6);
  CHECK(c.input_buffer_bytes == 8192);
  CHECK(c.weight_buffer_bytes == 8192);
  CHECK(c.accumulator_buffer_bytes == 8192);
  CHECK(c.dram_bytes_per_second == 2e9);
  CHECK(c.dram_latency_seconds == Approx(10e-9));
  CHECK((c.int8 && c.fp32 && !c.bf16 && !c.fp16));
  CHECK(c.vector_lanes == 4);
  CHECK(c.vector_clock_hz == 100e6);
}

TEST_CASE("fpga_sim config: the shipped descriptions load, the edge one is the built-in",
          "[fpga_sim][config]") {
  const AcceleratorConfig edge =
      dlk::fpga_sim::load_accelerator(DLK_SOURCE_DIR "/configs/fpga_sim/edge_32x32.json");
  const AcceleratorConfig builtin = dlk::fpga_sim::builtin_accelerator();
  CHECK(edge.rows == builtin.rows);
  CHECK(edge.cols == builtin.cols);
  CHECK(edge.dataflow == builtin.dataflow);
  CHECK(edge.clock_hz == builtin.clock_hz);
  CHECK(edge.input_buffer_bytes == builtin.input_buffer_bytes);
  CHECK(edge.weight_buffer_bytes == builtin.weight_buffer_bytes);
  CHECK(edge.accumulator_buffer_bytes == builtin.accumulator_buffer_bytes);
  CHECK(edge.dram_bytes_per_second == builtin.dram_bytes_per_second);
  CHECK(edge.dram_latency_seconds == Approx(builtin.dram_latency_seconds));
  CHECK((edge.int8 == builtin.int8 && edge.bf16 == builtin.bf16 && edge.fp16 == builtin.fp16 &&
         edge.fp32 == builtin.fp32));
  CHECK(edge.vector_lanes == builtin.vector_lanes);
  CHECK(edge.vector_clock_hz == builtin.vector_clock_hz);
  CHECK_NOTHROW(dlk::fpga_sim::check_accelerator(builtin));

  const AcceleratorConfig tpu =
      dlk::fpga_sim::load_accelerator(DLK_SOURCE_DIR "/configs/fpga_sim/tpu_v1.json");
  CHECK(tpu.rows == 256);
  CHECK(tpu.cols == 256);
  CHECK(tpu.clock_hz == 700e6);
  CHECK(tpu.input_buffer_bytes == 24 * 1024 * 1024);
  CHECK(tpu.dram_bytes_per_second == 34e9);
  CHECK((tpu.int8 && !tpu.bf16 && !tpu.fp16 && !tpu.fp32));
}

TEST_CASE("fpga_sim config: unknown keys are errors at every level", "[fpga_sim][config]") {
  expect_error(valid_with(R"("name": "t",)", R"("name": "t", "colour": "red",)"), "colour",
               "is not a key of this format");
  expect_error(valid_with(R"("rows": 4,)", R"("rows": 4, "rws": 4,)"), "array.rws",
               "is not a key of this format");
  expect_error(valid_with(R"("latency_ns": 10)", R"("latency_ns": 10, "channels": 2)"),
               "dram.channels", "is not a key of this format");
}

TEST_CASE("fpga_sim config: missing required keys are errors", "[fpga_sim][config]") {
  expect_error(valid_with(R"("name": "t",)", ""), "name", "is required and missing");
  expect_error(valid_with(R"("rows": 4, )", ""), "array.rows", "is required and missing");
  expect_error(valid_with(R"("dataflow": "ws", )", ""), "array.dataflow", "is required and missing");
  expect_error(valid_with(R"("accumulators": 8 )", R"("extra_never_read": 1 )"),
               "buffers_kib.accumulators", "is required and missing");
  expect_error(valid_with(R"("dtypes": ["int8", "fp32"],)", ""), "dtypes", "is required and missing");
  expect_error(valid_with(R"("lanes": 4, )", ""), "vector_unit.lanes", "is required and missing");
  expect_error(valid_with(R"("bandwidth_gb_per_s": 2, )", ""), "dram.bandwidth_gb_per_s",
               "is required and missing");
}

TEST_CASE("fpga_sim config: wrong types are errors", "[fpga_sim][config]") {
  expect_error(valid_with(R"("rows": 4)", R"("rows": "4")"), "array.rows", "must be an integer");
  expect_error(valid_with(R"("rows": 4)", R"("rows": 4.5)"), "array.rows", "must be an integer");
  expect_error(valid_with(R"("clock_mhz": 100 })", R"("clock_mhz": "fast" })"), "array.clock_mhz",
               "must be a number > 0");
  expect_error(valid_with(R"("dataflow": "ws")", R"("dataflow": 1)"), "array.dataflow",
               "must be a string");
  expect_error(valid_with(R"({ "rows": 4, "cols": 4, "dataflow": "ws", "clock_mhz": 100 })", "5"),
               "array", "must be an object");
  expect_error(valid_with(R"(["int8", "fp32"])", R"("int8")"), "dtypes", "must be a non-empty list");
  expect_error(valid_with(R"(["int8", "fp32"])", R"(["int8", 8])"), "dtypes", "must be a non-empty list");
  expect_error(valid_with(R"("name": "t")", R"("name": 7)"), "name", "must be a string");
}

TEST_CASE("fpga_sim config: impossible values are errors", "[fpga_sim][config]") {
  expect_error(valid_with(R"("rows": 4)", R"("rows": 0)"), "array.rows", "from 1 to 65536, not 0");
  expect_error(valid_with(R"("cols": 4)", R"("cols": -2)"), "array.cols", "from 1 to 65536, not -2");
  expect_error(valid_with(R"("clock_mhz": 100 })", R"("clock_mhz": 0 })"), "array.clock_mhz",
               "must be a number > 0, not 0");
  expect_error(valid_with(R"("dataflow": "ws")", R"("dataflow": "rs")"), "array.dataflow",
               "must be one of os, ws, is, not 'rs'");
  expect_error(valid_with(R"("bandwidth_gb_per_s": 2)", R"("bandwidth_gb_per_s": 0)"),
               "dram.bandwidth_gb_per_s", "must be a number > 0");
  expect_error(valid_with(R"("latency_ns": 10)", R"("latency_ns": -1)"), "dram.latency_ns",
               "must be a number >= 0");
  expect_error(valid_with(R"(["int8", "fp32"])", R"([])"), "dtypes", "must be a non-empty list");
  expect_error(valid_with(R"(["int8", "fp32"])", R"(["int4"])"), "dtypes", "'int4' is none of them");
  expect_error(valid_with(R"(["int8", "fp32"])", R"(["int8", "int8"])"), "dtypes",
               "'int8' appears twice");
  expect_error(valid_with(R"("lanes": 4)", R"("lanes": 0)"), "vector_unit.lanes", "not 0");
  expect_error(valid_with(R"("inputs": 8)", R"("inputs": 0)"), "buffers_kib.inputs", "not 0");
}

TEST_CASE("fpga_sim config: buffers too small for two tiles are errors", "[fpga_sim][config]") {
  // A 64x64 array of fp32 needs 2 * 64 * 64 * 4 bytes = 32 KiB of inputs and weights.
  const std::string big = valid_with(R"("rows": 4, "cols": 4)", R"("rows": 64, "cols": 64)");
  const auto with = [&](const std::string &from, const std::string &to) {
    std::string t = big;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const std::string roomy = with(R"("inputs": 8, "weights": 8, "accumulators": 8)",
                                 R"("inputs": 32, "weights": 32, "accumulators": 32)");
  CHECK_NOTHROW(parse_accelerator(roomy, kSource));
  const auto roomy_with = [&](const std::string &from, const std::string &to) {
    std::string t = roomy;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  expect_error(roomy_with(R"("inputs": 32)", R"("inputs": 31)"), "buffers_kib.inputs",
               "too small for two 64x64 tiles (double buffering) of 4-byte elements: needs 32768");
  expect_error(roomy_with(R"("weights": 32)", R"("weights": 16)"), "buffers_kib.weights", "needs 32768");
  expect_error(roomy_with(R"("accumulators": 32)", R"("accumulators": 31)"),
               "buffers_kib.accumulators", "needs 32768");
  // int8 only: one byte per operand element is enough.
  CHECK_NOTHROW(parse_accelerator(
      roomy_with(R"(["int8", "fp32"])", R"(["int8"])").replace(roomy.find(R"("inputs": 32)"), 12,
                                                              R"("inputs":  8)"),
      kSource));
}

TEST_CASE("fpga_sim config: not JSON, or no file, names the file", "[fpga_sim][config]") {
  try {
    parse_accelerator("{ \"name\": ", kSource);
    FAIL("parsed");
  } catch (const dlk::core::Error &e) {
    CHECK_THAT(std::string(e.what()), Catch::StartsWith("fpga_sim config 'test.json': not valid JSON"));
  }
  try {
    dlk::fpga_sim::load_accelerator("/nonexistent/fpga.json");
    FAIL("loaded");
  } catch (const dlk::core::Error &e) {
    CHECK(e.status() == DLK_STATUS_INVALID_ARGUMENT);
    CHECK_THAT(std::string(e.what()),
               Catch::StartsWith("fpga_sim config '/nonexistent/fpga.json': cannot be opened"));
  }
}
