// The points of `dlk-perf compress --backend cuda`: one codec at one size on the
// context's device (include/dlk/dlk_device_codec.h), its encode (with error
// feedback), decode and decode_add, each against the device memory bandwidth
// measured in the same interleaved rounds: dlk_memcpy device to device of a
// buffer as large as the call's working set, which reads and writes each byte
// once (the roof counts both). A sample queues calls back to back, as a training
// step does, until they cover at least 256 MiB of input, then synchronizes once.
#pragma once

#include <cstddef>
#include <string>

#include "dlk/dlk.hpp"
#include "dlk/dlk_compress.h"
#include "perf/common/report_table.hpp"
#include "perf/common/timing.hpp"
#include "perf/workloads/compress_points.hpp"

namespace dlk::perf {

// Rows of codec_points_table(), memory level "device". Throws dlk::Error when a
// call fails (a codec the backend does not run: DLK_STATUS_UNSUPPORTED).
CodecRates add_device_codec_points(ReportTable &table, dlk::Context &context, const std::string &algorithm,
                                   const dlk_codec_params &params, size_t bytes, const TimingOptions &timing);

}  // namespace dlk::perf
