// The points of `dlk-perf compress`, shared with `dlk-perf report`: one codec at
// one size, its encode (with error feedback), decode and decode_add, each placed
// against the read bandwidth of a buffer as large as its working set, timed in
// the same interleaved rounds on the single thread the codecs use.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "dlk/dlk_compress.h"
#include "perf/machine/cpu_caches.hpp"
#include "perf/common/report_table.hpp"
#include "perf/common/timing.hpp"

namespace dlk::perf {

// The codec names, in the order the tables list them: onebit, topk, int8, int4, fp16, bf16.
const std::vector<std::string> &codec_names();

// name: one of codec_names(); selection: "sampled" or "exact".
dlk_codec_params codec_params(const std::string &name, double topk_fraction,
                              const std::string &topk_selection);

// algorithm, operation, size, ratio, time, input and moved bytes per second,
// working set, memory level, roof, % of roof (schema dlk-perf/compress/1's points).
ReportTable codec_points_table();

// Input bytes (4 per float) per second of each operation at one size.
struct CodecRates {
  double encode = 0, decode = 0, decode_add = 0;
};

// Times the three operations of one codec at `bytes` of float input and the
// read roofs of their working sets, interleaved, and adds a row for each.
CodecRates add_codec_points(ReportTable &table, const CacheSizes &caches, const std::string &algorithm,
                            const dlk_codec_params &params, size_t bytes, const TimingOptions &timing);

}  // namespace dlk::perf
