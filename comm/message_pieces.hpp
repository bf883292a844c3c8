// A chunk's message travels as pieces of at most kPieceBytes, each its own MPI
// message. Open MPI's TCP transport sends a message above its eager limit (64
// KiB) only once the receiver has acknowledged it, and on a link busy in both
// directions that acknowledgement waits behind the data queued the other way:
// on the emulated 100 Mbit/s link, int8's 270 KB chunk messages took 1.9x the
// wire time, and 1.05x when sent eagerly. A piece below the limit goes out at
// once, into a receive posted in advance.
// A message of capacity c always travels as pieces_of(c) pieces, the last ones
// short or empty, so that a receiver that knows only the capacity (sampled
// topk's messages may be shorter) posts the same receives.
// Pure functions, fuzzed (tests/fuzz/fuzz_comm_messages.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "comm/segments.hpp"

namespace dlk::comm {

// Below the 64 KiB eager limit with room for MPI's own headers.
constexpr uint64_t kPieceBytes = uint64_t(60) << 10;

// At least one (an empty message is one empty piece).
uint64_t pieces_of(uint64_t capacity);

// Piece i of a message of `size` bytes: where it starts and its bytes.
Span piece(uint64_t size, uint64_t i);

// The message's size from the bytes each of its pieces brought: every piece is
// as piece() cuts it (full up to the last non-empty one, then empty), and the
// total at most capacity. Throws DLK_COMM_CODEC_ERROR naming `rank` otherwise.
uint64_t joined_size(const char *call, int rank, const std::vector<uint64_t> &piece_bytes,
                     uint64_t capacity);

}  // namespace dlk::comm
