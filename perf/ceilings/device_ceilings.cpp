#include "perf/ceilings/device_ceilings.hpp"

#include <vector>

#include <fmt/format.h>

#include "perf/common/random_elements.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {
namespace {

// Seconds of each of `runs` calls of `call` (each synchronized), after one untimed.
std::vector<double> time_runs(const std::function<void()> &call, int runs) {
  call();
  std::vector<double> seconds;
  for (int r = 0; r < runs; ++r) {
    const double start = now_seconds();
    call();
    seconds.push_back(now_seconds() - start);
  }
  return seconds;
}

Summary rates(double work, const std::vector<double> &seconds) {
  std::vector<double> r;
  for (double s : seconds) r.push_back(work / s);
  return summarize(r);
}

DevicePeak gemm_peak(dlk::Context &context, const std::string &dtype, std::int64_t size, int runs,
                     double theoretical) {
  const bool integer = dtype == "int8";
  const dlk_dtype in = dtype == "f32" ? DLK_DTYPE_F32 : integer ? DLK_DTYPE_S8 : DLK_DTYPE_BF16;
  const dlk_dtype out = integer ? DLK_DTYPE_S32 : DLK_DTYPE_F32;
  const auto count = static_cast<size_t>(size) * static_cast<size_t>(size);
  dlk::Buffer<unsigned char> a(context, count * dlk_dtype_size(in)), b(context, count * dlk_dtype_size(in)),
      c(context, count * dlk_dtype_size(out));
  a.upload(random_elements(in, count, 1).data());
  b.upload(random_elements(in, count, 2).data());
  dlk_gemm_desc desc = dlk::gemm_desc(in, in, out, size, size, size);
  // int8: B transposed (n x k, K contiguous), the form cuBLASLt's int8 kernels take directly.
  if (integer) desc.trans_b = DLK_TRANSPOSE, desc.ldb = size;
  const std::vector<double> seconds = time_runs(
      [&] {
        context.gemm(desc, a.get(), b.get(), c.get());
        context.synchronize();
      },
      runs);
  const std::string kernel = context.last_op().implementation;
  return {dtype, theoretical, rates(2.0 * size * size * size, seconds),
          fmt::format("dlk_gemm {}^3 ({}), best of {} runs", size, kernel, runs)};
}

}  // namespace

RoofCeilings DeviceCeilings::roof_ceilings() const {
  Ceiling compute{"fp32_peak", "flop/s", peaks.at(0).measured, peaks.at(0).method};
  return {compute, memory};
}

DeviceCeilings measure_device_ceilings(dlk::Context &context, const DeviceCeilingOptions &o) {
  DeviceCeilings result;
  {
    dlk::Buffer<unsigned char> src(context, o.copy_bytes), dst(context, o.copy_bytes);
    const std::vector<double> seconds = time_runs(
        [&] {
          context.memcpy(dst.get(), src.get(), o.copy_bytes, DLK_COPY_DEVICE_TO_DEVICE);
          context.synchronize();
        },
        o.runs);
    result.memory = {"device_copy", "byte/s", rates(2.0 * static_cast<double>(o.copy_bytes), seconds),
                     fmt::format("dlk_memcpy device to device of {} MiB, bytes read + written, best of {} runs",
                                 o.copy_bytes >> 20, o.runs)};
  }
  const dlk_context_info info = context.info();
  result.peaks.push_back(gemm_peak(context, "f32", o.gemm_size, o.runs, info.peak_f32_flops));
  result.peaks.push_back(gemm_peak(context, "bf16", o.gemm_size, o.runs, info.peak_bf16_flops));
  result.peaks.push_back(gemm_peak(context, "int8", o.gemm_size, o.runs, info.peak_int8_ops));
  return result;
}

ReportTable device_peaks_table(const DeviceCeilings &c) {
  ReportTable table({{"dtype", "dtype", 1, 0},
                     {"measured", "best G/s", 1e-9, 1},
                     {"median", "median", 1e-9, 1},
                     {"theoretical", "theory", 1e-9, 1},
                     {"percent_of_theoretical", "%theory", 1, 1},
                     {"runs", "runs", 1, 0, Show::json},
                     {"method", "method", 1, 0}});
  for (const DevicePeak &p : c.peaks)
    table.add_row({p.dtype, p.measured.max, p.measured.median, p.theoretical > 0 ? Cell(p.theoretical) : Cell(),
                   p.theoretical > 0 ? Cell(100.0 * p.measured.max / p.theoretical) : Cell(),
                   static_cast<std::int64_t>(p.measured.count), p.method});
  return table;
}

}  // namespace dlk::perf
