// The timing model against cycle counts worked out by hand, against SCALE-Sim's
// published figures, and its DRAM side: tiling edges, DRAM-bound and
// compute-bound cases, double buffering.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "backends/fpga_sim/fold_timing.hpp"

using dlk::fpga_sim::AcceleratorConfig;
using dlk::fpga_sim::ArrayGemm;
using dlk::fpga_sim::Dataflow;
using dlk::fpga_sim::compute_cycles;
using dlk::fpga_sim::time_gemm;

namespace {

// DRAM unlimited, no latency, a vector unit that never bounds: the array alone.
AcceleratorConfig array(int64_t rows, int64_t cols, Dataflow d) {
  AcceleratorConfig c;
  c.name = "test";
  c.source = "test";
  c.rows = rows, c.cols = cols, c.dataflow = d;
  c.clock_hz = 1e9;
  c.input_buffer_bytes = c.weight_buffer_bytes = c.accumulator_buffer_bytes = int64_t(1) << 40;
  c.dram_bytes_per_second = std::numeric_limits<double>::infinity();
  c.dram_latency_seconds = 0;
  c.int8 = true;
  c.vector_lanes = int64_t(1) << 40;
  c.vector_clock_hz = 1e9;
  return c;
}

ArrayGemm int8_gemm(int64_t m, int64_t n, int64_t k) {
  ArrayGemm g;
  g.m = m, g.n = n, g.k = k;
  g.a_footprint = static_cast<double>(m * k);
  g.b_footprint = static_cast<double>(k * n);
  g.c_written = static_cast<double>(m * n);
  return g;
}

}  // namespace

// GEMMs are named m x n x k: C (m x n) = A (m x k) * B (k x n). On a 4x4 array:
//   os: m on rows, n on columns, k in time;  fold = R + C + k - 2 = 6 + k
//   ws: k on rows, n on columns, m in time;  fold = 2R + C + m - 2 = 10 + m
//   is: k on rows, m on columns, n in time;  fold = 2R + C + n - 2 = 10 + n
TEST_CASE("fpga_sim timing: 4x4 array, hand-worked compute cycles", "[fpga_sim][timing]") {
  const AcceleratorConfig os = array(4, 4, Dataflow::output_stationary);
  const AcceleratorConfig ws = array(4, 4, Dataflow::weight_stationary);
  const AcceleratorConfig is = array(4, 4, Dataflow::input_stationary);
  // 4x4x4: one fold everywhere.
  CHECK(compute_cycles(os, 4, 4, 4) == 10);  // 1 fold * (6 + 4)
  CHECK(compute_cycles(ws, 4, 4, 4) == 14);  // 1 fold * (10 + 4)
  CHECK(compute_cycles(is, 4, 4, 4) == 14);  // 1 fold * (10 + 4)
  // 4x8x5: n = 8 is two column folds (os, ws); k = 5 two row folds (ws, is).
  CHECK(compute_cycles(os, 4, 8, 5) == 22);  // 1 * 2 folds * (6 + 5)
  CHECK(compute_cycles(ws, 4, 8, 5) == 56);  // 2 * 2 folds * (10 + 4)
  CHECK(compute_cycles(is, 4, 8, 5) == 36);  // 2 * 1 folds * (10 + 8)
  // 9x4x4: m = 9 is three row folds (os) or three column folds (is).
  CHECK(compute_cycles(os, 9, 4, 4) == 30);  // 3 * 1 folds * (6 + 4)
  CHECK(compute_cycles(ws, 9, 4, 4) == 19);  // 1 * 1 fold * (10 + 9)
  CHECK(compute_cycles(is, 9, 4, 4) == 42);  // 1 * 3 folds * (10 + 4)
}

TEST_CASE("fpga_sim timing: with DRAM unlimited a GEMM takes its compute cycles",
          "[fpga_sim][timing]") {
  for (const Dataflow d :
       {Dataflow::output_stationary, Dataflow::weight_stationary, Dataflow::input_stationary}) {
    const AcceleratorConfig c = array(4, 4, d);
    const auto cost = time_gemm(c, int8_gemm(4, 8, 5));
    INFO(dlk::fpga_sim::dataflow_name(d));
    CHECK(cost.cycles == static_cast<double>(compute_cycles(c, 4, 8, 5)));
    CHECK(cost.compute_cycles == cost.cycles);
    CHECK(cost.macs == 4 * 8 * 5);
  }
}

// SCALE-Sim v2's regression test (test/golden_trace/COMPUTE_REPORT.csv): the
// first AlexNet convolution (227x227x3 input, 96 filters of 11x11, stride 4:
// m = 55*55 = 3025 pixels, n = 96, k = 363) on a 32x32 ws array reports
// "Total Cycles" 112283 and "Mapping Efficiency" 94.53125 %. SCALE-Sim counts
// the cycle index of the last output (from 0), so its figure is dlk's count - 1:
// 12 row folds * 3 column folds * (64 + 32 + 3025 - 2) = 112284.
TEST_CASE("fpga_sim timing: SCALE-Sim's golden AlexNet layer on 32x32 ws", "[fpga_sim][timing]") {
  const AcceleratorConfig ws = array(32, 32, Dataflow::weight_stationary);
  CHECK(compute_cycles(ws, 3025, 96, 363) - 1 == 112283);
  const auto f = dlk::fpga_sim::map_gemm(ws, 3025, 96, 363);
  // Mapping efficiency: the average over folds of the PEs mapped (11 full row
  // folds and one of 11 rows, every column fold full).
  const double mapped = (11.0 * 32 + 11) / (12.0 * 32);
  CHECK(mapped * 100 == Approx(94.53125));
  CHECK(f.row_folds == 12);
  CHECK(f.col_folds == 3);
  // The same layer in the other dataflows, from SCALE-Sim's compute model
  // (os: 95 * 3 folds * (32 + 32 + 363 - 2); is: 12 * 95 folds * (64 + 32 + 96 - 2)).
  CHECK(compute_cycles(array(32, 32, Dataflow::output_stationary), 3025, 96, 363) == 121125);
  CHECK(compute_cycles(array(32, 32, Dataflow::input_stationary), 3025, 96, 363) == 216600);
}

TEST_CASE("fpga_sim timing: one above a multiple of the array costs a whole fold",
          "[fpga_sim][timing]") {
  const AcceleratorConfig os = array(32, 32, Dataflow::output_stationary);
  CHECK(compute_cycles(os, 32, 32, 100) == 162);      // 1 fold * (62 + 100)
  CHECK(compute_cycles(os, 33, 32, 100) == 2 * 162);  // m one above: 2 folds
  CHECK(compute_cycles(os, 32, 33, 100) == 2 * 162);
  CHECK(compute_cycles(os, 33, 33, 100) == 4 * 162);
  CHECK(compute_cycles(os, 32, 32, 101) == 163);      // k streams: one cycle more
  const AcceleratorConfig ws = array(32, 32, Dataflow::weight_stationary);
  CHECK(compute_cycles(ws, 100, 32, 32) == 194);      // 1 fold * (64 + 32 + 100 - 2)
  CHECK(compute_cycles(ws, 100, 32, 33) == 2 * 194);  // k one above: 2 row folds
  CHECK(compute_cycles(ws, 100, 33, 32) == 2 * 194);
  const AcceleratorConfig is = array(32, 32, Dataflow::input_stationary);
  CHECK(compute_cycles(is, 33, 100, 32) == 2 * 194);
  CHECK(compute_cycles(is, 32, 100, 33) == 2 * 194);
  // Utilization falls with the padding of the last fold.
  const auto full = time_gemm(os, int8_gemm(64, 64, 256));
  const auto edge = time_gemm(os, int8_gemm(65, 64, 256));
  CHECK(edge.macs / (edge.cycles * 1024) < full.macs / (full.cycles * 1024));
}

TEST_CASE("fpga_sim timing: a DRAM-bound GEMM waits for its transfers", "[fpga_sim][timing]") {
  // A 4-column-wide output-stationary GEMM with long k: each fold needs
  // (4 + 4) * k bytes and computes for 6 + k cycles; at 1 byte per cycle DRAM
  // needs ~8x longer than compute.
  AcceleratorConfig c = array(4, 4, Dataflow::output_stationary);
  c.dram_bytes_per_second = 1e9;  // 1 byte per cycle at 1 GHz
  c.input_buffer_bytes = c.weight_buffer_bytes = 64;  // nothing stays resident
  const ArrayGemm g = int8_gemm(64, 4, 1000);
  const auto cost = time_gemm(c, g);
  CHECK(cost.compute_cycles == 16 * (6 + 1000));
  CHECK(cost.dram_transfer_cycles > cost.compute_cycles);
  CHECK(cost.cycles >= cost.dram_transfer_cycles);
  // Every A block once, the B block again in every fold (too big to stay), C once.
  CHECK(cost.dram_bytes_read == 64 * 1000 + 16 * 4 * 1000);
  CHECK(cost.dram_bytes_written == 64 * 4);
  CHECK(cost.cycles == Approx(cost.dram_bytes_read + cost.dram_bytes_written).epsilon(0.01));
}

TEST_CASE("fpga_sim timing: a compute-bound GEMM hides DRAM behind double buffering",
          "[fpga_sim][timing]") {
  // ws on 4x4: each fold loads a 16-byte weight tile and computes 10 + m cycles.
  AcceleratorConfig c = array(4, 4, Dataflow::weight_stationary);
  c.dram_bytes_per_second = 4e9;  // 4 bytes per cycle
  const ArrayGemm g = int8_gemm(1000, 16, 16);  // A (16 KB) stays resident
  const auto cost = time_gemm(c, g);
  CHECK(cost.compute_cycles == 16 * (10 + 1000));
  CHECK(cost.dram_transfer_cycles < cost.compute_cycles);
  // Exposed: the first fold's load (16 bytes of B and 4000 of A = 1004 cycles)
  // and the last fold's store (4000 bytes of C: 1000 cycles); the rest overlaps.
  CHECK(cost.dram_bytes_read == 16 * 16 + 1000 * 16);
  CHECK(cost.dram_bytes_written == 1000 * 16);
  CHECK(cost.cycles == cost.compute_cycles + 1004 + 1000);
}

TEST_CASE("fpga_sim timing: buffers decide how often an operand comes from DRAM",
          "[fpga_sim][timing]") {
  AcceleratorConfig c = array(4, 4, Dataflow::output_stationary);
  c.dram_bytes_per_second = 1e9;
  const ArrayGemm g = int8_gemm(64, 64, 64);
  const auto resident = time_gemm(c, g);
  CHECK(resident.dram_bytes_read == 64 * 64 * 2);  // A and B once each
  c.input_buffer_bytes = 4096;                      // A (4 KiB) no longer fits in half
  const auto refetched = time_gemm(c, g);
  CHECK(refetched.dram_bytes_read == 64 * 64 * 16 + 64 * 64);  // A once per column fold
  // Partial sums that do not fit in the accumulators go out and come back (ws).
  AcceleratorConfig ws = array(4, 4, Dataflow::weight_stationary);
  ws.dram_bytes_per_second = 1e9;
  ws.accumulator_buffer_bytes = 2 * 4 * 4 * 4;  // two 4x4 tiles of s32, not 64x4
  const auto spilled = time_gemm(ws, int8_gemm(64, 4, 8));  // two row folds
  CHECK(spilled.dram_bytes_written == 64 * 4 * 4 + 64 * 4);  // partials out, then C
  CHECK(spilled.dram_bytes_read == 64 * 8 + 8 * 4 + 64 * 4 * 4);
}
