// Writing a large all-reduce result without reading it first. A regular store
// reads every line it overwrites (read for ownership); on this project's 2-core
// Xeon one core moves about 10 GB/s from DRAM, so a 64 MiB result decoded in
// place costs 64 MiB of reads it does not need. The compressed algorithms decode
// each chunk into a chunk-long staging buffer that stays in the L2, then copy it
// to the caller's buffer with non-temporal stores.
#pragma once

#include <cstdint>

namespace dlk::comm {

// Results of at least this many bytes are staged and streamed; smaller ones are
// written in place and stay in the cache for the caller. The same threshold as
// libdlk_compress's own decoder (compression/api.cpp, kStreamingStoreBytes).
constexpr uint64_t kStreamingResultBytes = uint64_t(48) << 20;

inline bool streams_result(uint64_t count) { return 4 * count >= kStreamingResultBytes; }

// to[0, count) = from[0, count), bit for bit, with non-temporal stores where the
// CPU has them (x86-64: SSE2, always), ordered before the function returns.
void copy_streaming(float *to, const float *from, uint64_t count);

}  // namespace dlk::comm
