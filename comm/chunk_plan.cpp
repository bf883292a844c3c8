#include "comm/chunk_plan.hpp"

#include <algorithm>
#include <string>

#include "comm/error.hpp"

namespace dlk::comm {
namespace {

// topk's k for the whole buffer, as the codec computes it: its message for
// `count` elements is a header and k 8-byte pairs.
uint64_t topk_k(const char *call, const dlk_codec_params &params, uint64_t count) {
  size_t bytes = 0;
  check_codec(call, dlk_compress_max_message_size(&params, count, &bytes));
  return (bytes - DLK_CODEC_HEADER_SIZE) / 8;
}

// The share of k that falls in elements [begin, end) of count: the differences
// of floor(k * x / count) add up to k exactly over the chunks.
uint64_t share(uint64_t k, uint64_t count, uint64_t begin, uint64_t end) {
  const auto at = [&](uint64_t x) {
    return static_cast<uint64_t>(static_cast<unsigned __int128>(k) * x / count);
  };
  return std::max<uint64_t>(1, at(end) - at(begin));
}

}  // namespace

uint64_t chunk_elements(uint64_t chunk_bytes, const dlk_codec_params &params) {
  uint64_t elements = std::max<uint64_t>(1, chunk_bytes / 4);
  if (params.algorithm == DLK_CODEC_TOPK && params.topk_fraction > 0) {
    const double least = kTopkChunkPerFraction / params.topk_fraction;  // fraction in (0, 1]
    elements = std::max(elements, least < 0x1p48 ? static_cast<uint64_t>(least) : uint64_t(1) << 48);
  }
  const uint64_t block = params.block_size ? params.block_size : 1;
  return (elements + block - 1) / block * block;
}

std::vector<Chunk> plan_chunks(const char *call, const dlk_codec_params &params, uint64_t count,
                               Span span, uint64_t chunk_bytes) {
  if (chunk_bytes < kMinChunkBytes || chunk_bytes > kMaxChunkBytes)
    throw_invalid(call, "chunk_bytes (DLK_COMM_CHUNK_BYTES)",
                  "is " + std::to_string(chunk_bytes) + "; must be from " +
                      std::to_string(kMinChunkBytes) + " to " + std::to_string(kMaxChunkBytes));
  const bool topk = params.algorithm == DLK_CODEC_TOPK;
  const uint64_t k = topk && count ? topk_k(call, params, count) : 0;
  const uint64_t step = chunk_elements(chunk_bytes, params);
  const uint64_t n = std::max<uint64_t>(1, (span.length + step - 1) / step);
  std::vector<Chunk> chunks(n);
  for (uint64_t i = 0; i < n; ++i) {
    Chunk &c = chunks[i];
    c.begin = span.begin + i * step;
    c.length = std::min(step, span.length - std::min(span.length, i * step));
    c.params = params;
    c.params.seed = params.seed + c.begin;
    if (topk) c.params.topk_count = c.length ? share(k, count, c.begin, c.begin + c.length) : 0;
    size_t bytes = 0;
    check_codec(call, dlk_compress_max_message_size(&c.params, c.length, &bytes));
    c.capacity = bytes;
  }
  return chunks;
}

}  // namespace dlk::comm
