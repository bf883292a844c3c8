// The simulated record through the public API: dlk_context_last_sim and its
// struct_size rule, the verbose line, what an int8-only array supports, the
// accumulator overflow count, and config errors at context creation.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "dlk/dlk.h"
#include "tests/core/stderr_capture.hpp"

namespace {

dlk_context_t make_context(const char *config = nullptr, int verbose = 0) {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "fpga_sim";
  o.fpga_sim_config = config;
  o.verbose = verbose;
  dlk_context_t ctx = nullptr;
  const dlk_status status = dlk_context_create(&ctx, &o);
  INFO(dlk_last_error());
  REQUIRE(status == DLK_STATUS_SUCCESS);
  return ctx;
}

// C (m x n) s32 = A (m x k) u8 * B (k x n) s8 with A and B filled with `a` and `b`.
void int8_gemm(dlk_context_t ctx, int64_t m, int64_t n, int64_t k, uint8_t a, int8_t b,
               std::vector<int32_t> &c) {
  std::vector<uint8_t> av(static_cast<size_t>(m * k), a);
  std::vector<int8_t> bv(static_cast<size_t>(k * n), b);
  c.assign(static_cast<size_t>(m * n), 0);
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S32, m, n, k);
  INFO(dlk_last_error());
  REQUIRE(dlk_gemm(ctx, &d, av.data(), bv.data(), c.data()) == DLK_STATUS_SUCCESS);
}

}  // namespace

TEST_CASE("fpga_sim api: the last op's record follows the built-in 32x32 os array",
          "[fpga_sim][api]") {
  dlk_context_t ctx = make_context();
  dlk_context_info info{};
  REQUIRE(dlk_context_get_info(ctx, &info) == DLK_STATUS_SUCCESS);
  CHECK(std::string(info.backend) == "fpga_sim");
  CHECK(std::string(info.isa) == "systolic_32x32_os");
  CHECK(info.peak_int8_ops == 2.0 * 32 * 32 * 1e9);
  CHECK(info.memory_bandwidth == 16e9);

  std::vector<int32_t> c;
  int8_gemm(ctx, 64, 64, 100, 2, 3, c);
  CHECK(c[0] == 600);
  dlk_sim_record r;
  std::memset(&r, 0xff, sizeof r);
  r.struct_size = sizeof r;
  REQUIRE(dlk_context_last_sim(ctx, &r) == DLK_STATUS_SUCCESS);
  CHECK(r.struct_size == sizeof r);
  CHECK(r.compute_cycles == 4 * (32 + 32 + 100 - 2));  // 2 x 2 folds
  CHECK(r.folds == 4);
  CHECK(r.cycles >= r.compute_cycles);
  CHECK(r.stall_cycles == r.cycles - r.compute_cycles);
  CHECK(r.seconds == Approx(r.cycles / 1e9));
  CHECK(r.macs == 64.0 * 64 * 100);
  CHECK(r.mac_utilization == Approx(r.macs / (1024 * r.cycles)));
  CHECK(r.dram_bytes_read == 64 * 100 + 100 * 64);
  CHECK(r.dram_bytes_written == 64 * 64 * 4);
  CHECK(r.buffer_bytes_read > 0);
  CHECK(r.overflows == 0);
  // 29184 bytes at 16 bytes per cycle take 1824 cycles, compute 648: DRAM bound.
  CHECK(r.dram_bound == 1);

  dlk_op_record op{};
  REQUIRE(dlk_context_last_op(ctx, &op) == DLK_STATUS_SUCCESS);
  CHECK(op.sim_cycles == r.cycles);
  CHECK_THAT(std::string(op.implementation), Catch::StartsWith("fpga_sim:os_32x32:gemm_int8"));
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: struct_size must cover the first version; a larger one is kept",
          "[fpga_sim][api]") {
  dlk_context_t ctx = make_context();
  dlk_sim_record r{};
  r.struct_size = sizeof r;
  CHECK(dlk_context_last_sim(ctx, &r) == DLK_STATUS_INVALID_ARGUMENT);  // no op yet
  CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("has run no op yet"));
  std::vector<int32_t> c;
  int8_gemm(ctx, 4, 4, 4, 1, 1, c);
  r.struct_size = DLK_SIM_RECORD_SIZE_V1 - 1;
  CHECK(dlk_context_last_sim(ctx, &r) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()),
             Catch::StartsWith("dlk_context_last_sim: argument 'record->struct_size'"));
  CHECK(dlk_context_last_sim(ctx, nullptr) == DLK_STATUS_INVALID_ARGUMENT);
  // A caller from a later dlk.h with a bigger struct: known fields filled, its size kept.
  struct Later {
    dlk_sim_record v1;
    double future_field;
  } later{};
  later.v1.struct_size = sizeof later;
  later.future_field = 42;
  REQUIRE(dlk_context_last_sim(ctx, &later.v1) == DLK_STATUS_SUCCESS);
  CHECK(later.v1.struct_size == sizeof later);
  CHECK(later.v1.cycles > 0);
  CHECK(later.future_field == 42);
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: a CPU context has no simulated record", "[fpga_sim][api]") {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "cpu";
  dlk_context_t ctx = nullptr;
  REQUIRE(dlk_context_create(&ctx, &o) == DLK_STATUS_SUCCESS);
  std::vector<int32_t> c;
  int8_gemm(ctx, 4, 4, 4, 1, 1, c);
  dlk_sim_record r{};
  r.struct_size = sizeof r;
  CHECK(dlk_context_last_sim(ctx, &r) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK_THAT(std::string(dlk_last_error()), Catch::Contains("only fpga_sim does"));
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: DLK_VERBOSE=1 prints the simulated record on the op's line",
          "[fpga_sim][api]") {
  dlk_context_t ctx = make_context(nullptr, 1);
  std::vector<int32_t> c;
  dlk_test::StderrCapture capture;
  int8_gemm(ctx, 8, 8, 8, 1, 1, c);
  const std::vector<std::string> lines = capture.lines();
  REQUIRE(lines.size() == 1);
  CHECK_THAT(lines[0], Catch::StartsWith("dlk_verbose,exec,fpga_sim,gemm,fpga_sim:os_32x32:gemm_int8,"));
  CHECK_THAT(lines[0], Catch::Contains(",sim_cycles="));
  CHECK_THAT(lines[0], Catch::Contains(",util="));
  CHECK_THAT(lines[0], Catch::Contains(",dram_read=128,dram_written=256,"));
  CHECK_THAT(lines[0], Catch::Contains(",bound="));
  CHECK_THAT(lines[0], Catch::EndsWith(",overflows=0"));
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: the TPU v1-like array supports int8 only", "[fpga_sim][api]") {
  dlk_context_t ctx = make_context(DLK_SOURCE_DIR "/configs/fpga_sim/tpu_v1.json");
  int supported = -1;
  REQUIRE(dlk_context_supports(ctx, DLK_OP_GEMM, DLK_DTYPE_U8, DLK_DTYPE_S8, DLK_DTYPE_S8, &supported) ==
          DLK_STATUS_SUCCESS);
  CHECK(supported == 1);
  REQUIRE(dlk_context_supports(ctx, DLK_OP_GEMM, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32,
                               &supported) == DLK_STATUS_SUCCESS);
  CHECK(supported == 0);
  REQUIRE(dlk_context_supports(ctx, DLK_OP_CONV2D_BACKWARD_DATA, DLK_DTYPE_BF16, DLK_DTYPE_BF16,
                               DLK_DTYPE_BF16, &supported) == DLK_STATUS_SUCCESS);
  CHECK(supported == 0);
  std::vector<float> a(16, 1.0f), b(16, 1.0f), c(16, 0.0f);
  dlk_gemm_desc d;
  dlk_gemm_desc_init(&d, DLK_DTYPE_F32, DLK_DTYPE_F32, DLK_DTYPE_F32, 4, 4, 4);
  CHECK(dlk_gemm(ctx, &d, a.data(), b.data(), c.data()) == DLK_STATUS_UNSUPPORTED);
  dlk_context_info info{};
  REQUIRE(dlk_context_get_info(ctx, &info) == DLK_STATUS_SUCCESS);
  CHECK(info.peak_int8_ops == 2.0 * 256 * 256 * 700e6);
  CHECK(info.peak_f32_flops == 0);
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: sums that wrap the s32 accumulator are kept and counted",
          "[fpga_sim][api]") {
  dlk_context_t ctx = make_context();
  // 255 * 127 * 70000 > 2^31: every output wraps, exactly as on the CPU.
  std::vector<int32_t> c;
  int8_gemm(ctx, 2, 3, 70000, 255, 127, c);
  const int64_t exact = int64_t{255} * 127 * 70000;
  CHECK(c[0] == static_cast<int32_t>(static_cast<uint32_t>(exact)));
  dlk_sim_record r{};
  r.struct_size = sizeof r;
  REQUIRE(dlk_context_last_sim(ctx, &r) == DLK_STATUS_SUCCESS);
  CHECK(r.overflows == 6);
  // Just below the bound: nothing can wrap.
  int8_gemm(ctx, 2, 3, 60000, 255, 127, c);
  REQUIRE(dlk_context_last_sim(ctx, &r) == DLK_STATUS_SUCCESS);
  CHECK(r.overflows == 0);
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: convolution sums that wrap are counted too", "[fpga_sim][api]") {
  dlk_context_t ctx = make_context();
  // A 1x1 image with 70000 channels and two 1x1 filters: 70000 taps per output.
  const int64_t c = 70000;
  std::vector<uint8_t> src(c, 255);
  std::vector<int8_t> weights(2 * c, 127);
  weights[c] = -128;  // the second filter differs in one tap: 255 * (127 * 69999 - 128) wraps too
  std::vector<int32_t> dst(2, 0);
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, DLK_DTYPE_U8, 1, c, 1, 1, 2, 1, 1);
  d.weights_type = DLK_DTYPE_S8;
  d.dst_type = DLK_DTYPE_S32;
  INFO(dlk_last_error());
  REQUIRE(dlk_conv2d_forward(ctx, &d, src.data(), weights.data(), nullptr, dst.data()) ==
          DLK_STATUS_SUCCESS);
  CHECK(dst[0] == static_cast<int32_t>(static_cast<uint32_t>(int64_t{255} * 127 * c)));
  dlk_sim_record r{};
  r.struct_size = sizeof r;
  REQUIRE(dlk_context_last_sim(ctx, &r) == DLK_STATUS_SUCCESS);
  CHECK(r.overflows == 2);
  // Half the filter zero: 255 * 127 * 35000 fits.
  std::fill(weights.begin() + c / 2, weights.begin() + c, int8_t{0});
  std::fill(weights.begin() + c + c / 2, weights.end(), int8_t{0});
  REQUIRE(dlk_conv2d_forward(ctx, &d, src.data(), weights.data(), nullptr, dst.data()) ==
          DLK_STATUS_SUCCESS);
  REQUIRE(dlk_context_last_sim(ctx, &r) == DLK_STATUS_SUCCESS);
  CHECK(r.overflows == 0);
  dlk_context_destroy(ctx);
}

TEST_CASE("fpga_sim api: a bad description fails context creation naming file and key",
          "[fpga_sim][api]") {
  dlk_context_options o;
  dlk_context_options_init(&o);
  o.backend = "fpga_sim";
  o.fpga_sim_config = DLK_SOURCE_DIR "/tests/fpga_sim/configs/no_such_file.json";
  dlk_context_t ctx = nullptr;
  CHECK(dlk_context_create(&ctx, &o) == DLK_STATUS_INVALID_ARGUMENT);
  CHECK(ctx == nullptr);
  CHECK_THAT(std::string(dlk_last_error()),
             Catch::StartsWith("dlk_context_create: fpga_sim config '" DLK_SOURCE_DIR
                               "/tests/fpga_sim/configs/no_such_file.json': cannot be opened"));
}
