#include "perf/workloads/compress_points.hpp"

#include <cstdint>
#include <map>

#include "dlk/dlk_compress.hpp"
#include "perf/workloads/compress_read_roof.hpp"
#include "perf/workloads/compress_workload.hpp"

namespace dlk::perf {
namespace {

// "L1", "L2", "L3" or "DRAM": the smallest level the working set fits, by the
// cache sizes the system reports (a virtual machine may report the host's L3).
std::string memory_level(size_t working_set, const CacheSizes &caches) {
  if (working_set <= caches.l1d) return "L1";
  if (working_set <= caches.l2) return "L2";
  if (working_set <= caches.l3) return "L3";
  return "DRAM";
}

}  // namespace

const std::vector<std::string> &codec_names() {
  static const std::vector<std::string> names{"onebit", "topk", "int8", "int4", "fp16", "bf16"};
  return names;
}

dlk_codec_params codec_params(const std::string &name, double topk_fraction,
                              const std::string &topk_selection) {
  const std::map<std::string, dlk_codec_algorithm> algorithms = {
      {"onebit", DLK_CODEC_ONEBIT}, {"topk", DLK_CODEC_TOPK}, {"int8", DLK_CODEC_INT8},
      {"int4", DLK_CODEC_INT4},     {"fp16", DLK_CODEC_FP16}, {"bf16", DLK_CODEC_BF16}};
  dlk_codec_params p = dlk::compress::params(algorithms.at(name));
  p.topk_fraction = topk_fraction;
  p.topk_selection = topk_selection == "exact" ? DLK_CODEC_TOPK_EXACT : DLK_CODEC_TOPK_SAMPLED;
  return p;
}

ReportTable codec_points_table() {
  return ReportTable({{"algorithm", "algorithm", 1, 0},
                      {"operation", "operation", 1, 0},
                      {"size_bytes", "MiB", 1.0 / (1 << 20), 0},
                      {"compression_ratio", "ratio", 1, 1},
                      {"seconds", "ms", 1e3, 3},
                      {"seconds_min", "min ms", 1e3, 3, Show::json},
                      {"runs", "runs", 1, 0, Show::json},
                      {"input_bytes_per_second", "input GB/s", 1e-9, 2},
                      {"bytes_moved", "moved MB", 1e-6, 1},
                      {"bytes_per_second", "moved GB/s", 1e-9, 2},
                      {"working_set_bytes", "set MiB", 1.0 / (1 << 20), 1},
                      {"memory_level", "level", 1, 0, Show::json},
                      {"roof_bytes_per_second", "roof GB/s", 1e-9, 2},
                      {"percent_of_roof", "%roof", 1, 1}});
}

CodecRates add_codec_points(ReportTable &table, const CacheSizes &caches, const std::string &algorithm,
                            const dlk_codec_params &params, size_t bytes, const TimingOptions &timing) {
  CompressWorkload workload(params, bytes);
  const CodecOp ops[] = {CodecOp::encode, CodecOp::decode, CodecOp::decode_add};
  ReadRoof encode_roof(workload.traffic(CodecOp::encode).working_set);
  ReadRoof decode_roof(workload.traffic(CodecOp::decode).working_set);
  std::vector<Candidate> candidates = workload.candidates();
  candidates.push_back(encode_roof.candidate("read roof, encode's set"));
  candidates.push_back(decode_roof.candidate("read roof, decode's set"));
  const std::vector<Timing> timings = time_interleaved(candidates, timing);
  const double decode_bandwidth = decode_roof.bandwidth(timings[4].summary().median);
  const double roofs[] = {encode_roof.bandwidth(timings[3].summary().median), decode_bandwidth,
                          decode_bandwidth};
  double input_rates[3];
  for (size_t i = 0; i < 3; ++i) {
    const Summary t = timings[i].summary();
    const CodecTraffic traffic = workload.traffic(ops[i]);
    const double rate = traffic.bytes / t.median;
    input_rates[i] = 4.0 * workload.elements() / t.median;
    table.add_row({algorithm, std::string(codec_op_name(ops[i])),
                   static_cast<std::int64_t>(bytes), workload.compression_ratio(), t.median,
                   t.min, static_cast<std::int64_t>(t.count), input_rates[i],
                   traffic.bytes, rate, static_cast<std::int64_t>(traffic.working_set),
                   memory_level(traffic.working_set, caches), roofs[i], 100 * rate / roofs[i]});
  }
  return {input_rates[0], input_rates[1], input_rates[2]};
}

}  // namespace dlk::perf
