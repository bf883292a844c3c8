// The description of the simulated accelerator: a systolic array, its on-chip
// buffers, its DRAM and its vector unit, read from a JSON file or built in.
#pragma once

#include <cstdint>
#include <string>

namespace dlk::fpga_sim {

// Which operand stays in the processing elements while the others stream past
// (SCALE-Sim's names): outputs, weights (B) or inputs (A).
enum class Dataflow { output_stationary, weight_stationary, input_stationary };
const char *dataflow_name(Dataflow d);  // "os", "ws", "is"

struct AcceleratorConfig {
  std::string name;    // free text for the device line
  std::string source;  // the file it came from, or "built-in"
  int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::output_stationary;
  double clock_hz = 0;
  // On-chip buffers; each is double-buffered (half fills while half feeds the array).
  int64_t input_buffer_bytes = 0, weight_buffer_bytes = 0, accumulator_buffer_bytes = 0;
  double dram_bytes_per_second = 0;  // infinity: unlimited (tests only; JSON cannot say it)
  double dram_latency_seconds = 0;
  // Multiply types of the array: int8 (s32 accumulation), bf16 and fp16 (f32
  // accumulation), fp32.
  bool int8 = false, bf16 = false, fp16 = false, fp32 = false;
  int64_t vector_lanes = 0;  // pooling and epilogue, one element per lane per cycle
  double vector_clock_hz = 0;

  // The widest multiply operand the array takes, in bytes: what a buffer must hold.
  int64_t widest_operand_bytes() const;
};

// The built-in array: the same as configs/fpga_sim/edge_32x32.json.
AcceleratorConfig builtin_accelerator();

// Parses and checks a description. Every error is a dlk::core::Error with
// DLK_STATUS_INVALID_ARGUMENT whose message names the file and the key:
// "fpga_sim config '<source>': key 'array.rows': must be an integer from 1 to 65536".
AcceleratorConfig parse_accelerator(const std::string &json_text, const std::string &source);
AcceleratorConfig load_accelerator(const std::string &path);

// The rules that do not depend on JSON (sizes, clocks, buffers that hold a tile);
// parse_accelerator applies them, and so can code that builds a config itself.
void check_accelerator(const AcceleratorConfig &config);

}  // namespace dlk::fpga_sim
