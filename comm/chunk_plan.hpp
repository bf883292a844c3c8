// How the compressed algorithms cut a buffer into pipelined chunks, each its own
// message, so that a chunk is encoded while the one before is on the wire.
//
// The rule: a chunk holds chunk_bytes of the float gradient (DLK_COMM_CHUNK_BYTES,
// default 1 MiB, agreed by every rank), rounded up to whole codec blocks; a span
// (a rank's segment, or topk's whole buffer) is cut into chunks of that length
// from its start, the last one shorter (one empty chunk for an empty span).
// 1 MiB: at the codecs' 2-10 GB/s a chunk is 0.1-0.5 ms of work, so the pipeline
// fills and drains in well under a millisecond and MPI is entered often enough
// to keep a TCP link busy, while a 64 MiB gradient is only 64 messages per rank
// and phase (per-message cost stays near 1 %).
//
// topk's chunks hold at least 16384 / fraction elements (6.25 MiB at 1 %): its
// sampled threshold draws about 256 / fraction elements per message whatever the
// message's length (exact selection clears a 64 Ki-bucket histogram), a cost per
// chunk that this keeps within about 1/64 of the chunk's own work.
//
// Whole blocks mean a chunk's blocks are the blocks of the unchunked segment, so
// onebit, int8, int4, fp16 and bf16 give the bits they gave unchunked, except the
// stochastic rounding stream, which is keyed by the chunk (seed + its offset; the
// codec numbers elements from each message's start). topk keeps
// k * (chunk / count) of each chunk (its share of the buffer's k, at least one)
// instead of the k largest of the whole buffer.
// Pure functions of their arguments, fuzzed (tests/fuzz/fuzz_comm_messages.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "comm/segments.hpp"
#include "dlk/dlk_compress.h"

namespace dlk::comm {

constexpr uint64_t kDefaultChunkBytes = uint64_t(1) << 20;
// A chunk's largest message (topk at fraction 1: 8 bytes per element) stays
// below the INT_MAX bytes one MPI call moves.
constexpr uint64_t kMinChunkBytes = uint64_t(4) << 10, kMaxChunkBytes = uint64_t(256) << 20;

constexpr double kTopkChunkPerFraction = 16384;

struct Chunk {
  uint64_t begin;   // element offset in the buffer
  uint64_t length;  // elements
  uint64_t capacity;  // the largest message it can encode to, bytes (exact but for sampled topk)
  dlk_codec_params params;  // this chunk's: stochastic seed, topk's k
};

// Elements per chunk: chunk_bytes / 4 (chunk_bytes in [kMinChunkBytes,
// kMaxChunkBytes]), for topk at least kTopkChunkPerFraction / fraction, rounded
// up to a multiple of the codec's block size.
uint64_t chunk_elements(uint64_t chunk_bytes, const dlk_codec_params &params);

// The chunks of `span` of a buffer of `count` floats, as the rule above says.
// Throws DLK_COMM_INVALID_ARGUMENT (naming chunk_bytes) for a chunk_bytes out
// of range, and DLK_COMM_CODEC_ERROR when the codec refuses a chunk's parameters.
std::vector<Chunk> plan_chunks(const char *call, const dlk_codec_params &params, uint64_t count,
                               Span span, uint64_t chunk_bytes);

}  // namespace dlk::comm
