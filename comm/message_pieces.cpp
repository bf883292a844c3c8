#include "comm/message_pieces.hpp"

#include <algorithm>
#include <string>

#include "comm/error.hpp"

namespace dlk::comm {

uint64_t pieces_of(uint64_t capacity) {
  return std::max<uint64_t>(1, (capacity + kPieceBytes - 1) / kPieceBytes);
}

Span piece(uint64_t size, uint64_t i) {
  const uint64_t begin = std::min(size, i * kPieceBytes);
  return {begin, std::min(kPieceBytes, size - begin)};
}

uint64_t joined_size(const char *call, int rank, const std::vector<uint64_t> &piece_bytes,
                     uint64_t capacity) {
  uint64_t size = 0;
  for (const uint64_t bytes : piece_bytes) size += std::min(bytes, capacity + 1);
  bool as_cut = size <= capacity && piece_bytes.size() == pieces_of(capacity);
  for (uint64_t i = 0; as_cut && i < piece_bytes.size(); ++i)
    as_cut = piece_bytes[i] == piece(size, i).length;
  if (!as_cut)
    throw Error(DLK_COMM_CODEC_ERROR,
                std::string(call) + ": rank " + std::to_string(rank) +
                    " sent a message in pieces that do not join up (each piece full up to the "
                    "last one, " + std::to_string(pieces_of(capacity)) + " pieces, at most " +
                    std::to_string(capacity) + " bytes in all)");
  return size;
}

}  // namespace dlk::comm
