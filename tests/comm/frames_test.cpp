// The pure parts of the compressed algorithms' pipeline: the chunk plan
// (comm/chunk_plan.hpp) and the framing of each chunk's messages
// (comm/message_frames.hpp), which topk fills with sizes its peers sent: a
// hostile size is refused before anything is read. Once, a size near 2^64
// wrapped a running total past the INT_MAX check and became a negative MPI count
// (now fuzzed: fuzz_comm_messages).
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "comm/chunk_plan.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/message_pieces.hpp"
#include "comm/streaming_output.hpp"
#include "dlk/dlk_compress.hpp"

using dlk::comm::Chunk;
using dlk::comm::Error;
using dlk::comm::frame_slots;
using dlk::comm::plan_chunks;

namespace {

dlk_comm_status status_of(const std::vector<uint64_t> &sizes, uint64_t capacity) {
  try {
    frame_slots("test", sizes, capacity);
    return DLK_COMM_SUCCESS;
  } catch (const Error &e) {
    return e.status();
  }
}

float value(uint64_t i) {
  return static_cast<float>(static_cast<int64_t>((i * 2654435761u) % 2001) - 1000) * 1e-3f;
}

bool same_bits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

}  // namespace

TEST_CASE("frames are slots in rank order", "[comm][frames]") {
  const auto frames = frame_slots("test", {5, 0, 7}, 8);
  CHECK(frames.sizes == std::vector<uint64_t>{5, 0, 7});
  CHECK(frames.displacements == std::vector<uint64_t>{0, 8, 16});
  CHECK(frames.total == 24);
}

TEST_CASE("a received size is checked before it is read", "[comm][frames]") {
  CHECK(status_of({10, UINT64_MAX - 5}, 100) == DLK_COMM_CODEC_ERROR);
  CHECK(status_of({101}, 100) == DLK_COMM_CODEC_ERROR);
  CHECK(status_of({1}, uint64_t(INT_MAX) + 1) == DLK_COMM_INVALID_ARGUMENT);
  CHECK(status_of({INT_MAX, 1}, INT_MAX) == DLK_COMM_SUCCESS);
}

TEST_CASE("a chunk's messages sum in rank order; a bad one is refused", "[comm][frames]") {
  dlk_codec_params params = dlk::compress::params(DLK_CODEC_FP16);
  const std::vector<float> a{1, 2, 3}, b{10, 20, 30};
  std::vector<uint8_t> gathered = dlk::compress::encode(params, a.data(), nullptr, 3);
  const std::vector<uint8_t> second = dlk::compress::encode(params, b.data(), nullptr, 3);
  const uint64_t size = second.size();
  gathered.insert(gathered.end(), second.begin(), second.end());
  const auto frames = frame_slots("test", {size, size}, size);

  std::vector<float> sum(3, -1.0f);
  dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3,
                          dlk::comm::Into::overwrite);
  CHECK(sum == std::vector<float>{11, 22, 33});
  dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3, dlk::comm::Into::add);
  CHECK(sum == std::vector<float>{22, 44, 66});

  // The checksum covers the header (the payload's fields are validated): a
  // flipped bit of the second message's element count no longer matches it.
  gathered[size + 8] ^= 1;
  CHECK_THROWS_AS(dlk::comm::sum_messages("test", gathered.data(), frames, sum.data(), 3,
                                          dlk::comm::Into::add),
                  Error);
}

TEST_CASE("chunks tile a span in whole codec blocks, the last one shorter", "[comm][chunks]") {
  for (const dlk_codec_algorithm algorithm :
       {DLK_CODEC_ONEBIT, DLK_CODEC_INT8, DLK_CODEC_INT4, DLK_CODEC_FP16, DLK_CODEC_BF16,
        DLK_CODEC_TOPK}) {
    CAPTURE(dlk_compress_algorithm_name(algorithm));
    const dlk_codec_params params = dlk::compress::params(algorithm);
    const uint64_t block = params.block_size ? params.block_size : 1;
    for (const uint64_t length : {uint64_t(0), uint64_t(1), uint64_t(5000), uint64_t(100003)}) {
      CAPTURE(length);
      const uint64_t begin = 777, count = begin + length + 11;
      const auto chunks = plan_chunks("test", params, count, {begin, length}, 4096);
      REQUIRE(!chunks.empty());
      uint64_t at = begin, k = 0;
      for (size_t i = 0; i < chunks.size(); ++i) {
        const Chunk &c = chunks[i];
        CHECK(c.begin == at);
        if (i + 1 < chunks.size()) CHECK(c.length == dlk::comm::chunk_elements(4096, params));
        CHECK((c.length % block == 0 || i + 1 == chunks.size()));
        CHECK(c.capacity == dlk::compress::max_message_size(c.params, c.length));
        CHECK(c.params.seed == params.seed + c.begin);
        if (i > 0) CHECK(c.params.seed != chunks[i - 1].params.seed);
        k += c.params.topk_count;
        at += c.length;
      }
      CHECK(at == begin + length);
      if (algorithm == DLK_CODEC_TOPK && length > 0) {
        // Each chunk's share of the buffer's k (at least one).
        const uint64_t whole = (dlk::compress::max_message_size(params, count) - 32) / 8;
        CHECK(k >= whole * length / count);
        CHECK(k <= whole * length / count + chunks.size() + 1);
      }
    }
  }
  CHECK(dlk::comm::chunk_elements(1 << 20, dlk::compress::params(DLK_CODEC_FP16)) == 262144);
  CHECK(dlk::comm::chunk_elements(5000, dlk::compress::params(DLK_CODEC_ONEBIT)) == 1280);  // 1250 up to blocks of 128
  const dlk_codec_params int8 = dlk::compress::params(DLK_CODEC_INT8);
  CHECK_THROWS_AS(plan_chunks("test", int8, 10, {0, 10}, 4095), Error);
  CHECK_THROWS_AS(plan_chunks("test", int8, 10, {0, 10}, (uint64_t(256) << 20) + 1), Error);
}

TEST_CASE("chunked encodes give the bits of one encode of the segment", "[comm][chunks]") {
  // Nearest rounding: a chunk's blocks are the segment's blocks, so the messages
  // differ but what they decode to, and the residual, are the same bits.
  for (const dlk_codec_algorithm algorithm :
       {DLK_CODEC_ONEBIT, DLK_CODEC_INT8, DLK_CODEC_INT4, DLK_CODEC_FP16, DLK_CODEC_BF16}) {
    CAPTURE(dlk_compress_algorithm_name(algorithm));
    const dlk_codec_params params = dlk::compress::params(algorithm);
    const uint64_t count = 30011, begin = 3001;
    std::vector<float> input(count), whole_residual(count), chunk_residual(count);
    for (uint64_t i = 0; i < count; ++i) {
      input[i] = value(i);
      whole_residual[i] = chunk_residual[i] = value(i + 7) * 0.01f;
    }
    const uint64_t length = count - begin;
    std::vector<float> whole(length), chunked(length);
    const auto message = dlk::compress::encode(params, input.data() + begin,
                                               whole_residual.data() + begin, length);
    dlk::compress::decode(message, whole.data(), length);
    for (const Chunk &c : plan_chunks("test", params, count, {begin, length}, 4096)) {
      const auto m = dlk::compress::encode(c.params, input.data() + c.begin,
                                           chunk_residual.data() + c.begin, c.length);
      CHECK(m.size() == c.capacity);
      dlk::compress::decode(m, chunked.data() + (c.begin - begin), c.length);
    }
    CHECK(same_bits(whole, chunked));
    CHECK(same_bits(whole_residual, chunk_residual));
  }
}

TEST_CASE("a message travels as pieces below the eager limit that join up", "[comm][pieces]") {
  using dlk::comm::joined_size;
  using dlk::comm::kPieceBytes;
  using dlk::comm::piece;
  using dlk::comm::pieces_of;
  CHECK(pieces_of(0) == 1);
  CHECK(pieces_of(kPieceBytes) == 1);
  CHECK(pieces_of(kPieceBytes + 1) == 2);
  const uint64_t capacity = 2 * kPieceBytes + 100;
  REQUIRE(pieces_of(capacity) == 3);
  CHECK(piece(capacity, 2).begin == 2 * kPieceBytes);
  CHECK(piece(capacity, 2).length == 100);
  CHECK(piece(10, 1).length == 0);  // a short message's last pieces are empty
  CHECK(joined_size("test", 1, {kPieceBytes, kPieceBytes, 100}, capacity) == capacity);
  CHECK(joined_size("test", 1, {kPieceBytes, 7, 0}, capacity) == kPieceBytes + 7);
  CHECK(joined_size("test", 1, {0, 0, 0}, capacity) == 0);
  // A gap, too many bytes, a piece too many or too few: refused, naming the rank.
  for (const std::vector<uint64_t> &bad :
       {std::vector<uint64_t>{7, kPieceBytes, 0}, {kPieceBytes, kPieceBytes, 101},
        {kPieceBytes, kPieceBytes, 100, 0}, {kPieceBytes, 100}, {UINT64_MAX, 0, 0}}) {
    try {
      joined_size("test", 3, bad, capacity);
      FAIL("accepted");
    } catch (const Error &e) {
      CHECK(e.status() == DLK_COMM_CODEC_ERROR);
      CHECK(std::string(e.what()).find("rank 3") != std::string::npos);
    }
  }
}

TEST_CASE("a streamed result is the bits of its staging, at any alignment", "[comm][stream]") {
  std::vector<float> from(300), to(300 + 8);
  for (size_t i = 0; i < from.size(); ++i) {
    const uint32_t bits = 0x9E3779B9u * static_cast<uint32_t>(i + 1);  // NaNs, infs, -0 too
    std::memcpy(&from[i], &bits, 4);
  }
  for (size_t shift = 0; shift < 4; ++shift)
    for (const size_t count : {size_t(0), size_t(1), size_t(3), size_t(4), size_t(7), size_t(300)}) {
      CAPTURE(shift, count);
      std::fill(to.begin(), to.end(), 7.0f);
      dlk::comm::copy_streaming(to.data() + shift, from.data(), count);
      CHECK(std::memcmp(to.data() + shift, from.data(), 4 * count) == 0);
      for (size_t i = 0; i < to.size(); ++i)
        if (i < shift || i >= shift + count) CHECK(to[i] == 7.0f);
    }
}
