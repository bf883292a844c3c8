// libFuzzer target: what a rank receives from its peers in a compressed
// all-reduce, through the functions topk and the two-phase algorithms use
// (comm/chunk_plan.hpp, comm/message_pieces.hpp, comm/message_frames.hpp): the
// chunk plan of a buffer, the pieces a message travels in (cut by the sender,
// and of lengths a peer chose), the sizes of one chunk's messages as the peers
// sent them (MPI_Get_count), the
// frames built from them, and the received bytes decoded and summed in rank
// order. Input:
//   u8 ranks - 1 (mod 8), u8 codec (mod 6), u8 mode, u16 element count,
//   one u64 received size per rank, then the received bytes (repeated to fill).
// mode bit 0: the first message overwrites the sum (two-phase) or adds (topk);
// bit 1: sizes taken modulo the chunk's largest message + 1 (mostly plausible)
// instead of raw; bit 2: chunks of the smallest chunk_bytes (1024 floats, so a
// count of up to 65535 is up to 64 chunks; topk at fraction 1, 16384) instead of
// one chunk; bits 3-7: which
// chunk (mod their number). The plan must tile the buffer in whole blocks; a
// refused size must come with DLK_COMM_CODEC_ERROR (larger than the chunk's
// largest message); accepted frames are slots of that size in rank order; a
// refused message comes with DLK_COMM_CODEC_ERROR. The received bytes and the
// chunk's sum are guarded buffers.
#include <vector>

#include "comm/chunk_plan.hpp"
#include "comm/error.hpp"
#include "comm/message_frames.hpp"
#include "comm/message_pieces.hpp"
#include "dlk/dlk_compress.h"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using namespace dlk::comm;
using dlk_fuzz::Bytes;
using dlk_fuzz::GuardedBuffer;
using dlk_fuzz::require;

const dlk_codec_algorithm kCodecs[] = {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8,
                                       DLK_CODEC_INT4,   DLK_CODEC_FP16, DLK_CODEC_BF16};

uint64_t u64(Bytes &in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(in.u8()) << (8 * i);
  return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  const int ranks = 1 + in.u8() % 8;
  const dlk_codec_algorithm codec = kCodecs[in.u8() % 6];
  const uint8_t mode = in.u8();
  const uint64_t count = in.u8() | uint64_t(in.u8()) << 8;

  dlk_codec_params params;
  require(dlk_compress_params_init(&params, codec) == DLK_CODEC_SUCCESS);
  // topk's chunks hold at least 16384 / fraction elements: a count of up to
  // 65535 is up to 4 of them.
  if (mode & 4) params.topk_fraction = 1.0;
  const uint64_t chunk_bytes = (mode & 4) ? kMinChunkBytes : kMaxChunkBytes;
  const std::vector<Chunk> chunks = plan_chunks("fuzz", params, count, {0, count}, chunk_bytes);
  require(!chunks.empty());
  const uint64_t block = params.block_size ? params.block_size : 1;
  uint64_t at = 0;
  for (size_t i = 0; i < chunks.size(); ++i) {
    require(chunks[i].begin == at && (chunks[i].length % block == 0 || i + 1 == chunks.size()));
    at += chunks[i].length;
  }
  require(at == count);
  const Chunk &chunk = chunks[(mode >> 3) % chunks.size()];

  std::vector<uint64_t> sizes(ranks);
  for (uint64_t &s : sizes) s = (mode & 2) ? u64(in) % (chunk.capacity + 1) : u64(in);

  // The pieces a message travels in: a message cut by piece() joins up to its
  // size; pieces of other lengths (the sizes, folded) join up only as cut.
  const uint64_t pieces = pieces_of(chunk.capacity);
  const uint64_t whole = sizes[0] % (chunk.capacity + 1);
  std::vector<uint64_t> cut(pieces), other(pieces);
  for (uint64_t i = 0; i < pieces; ++i) {
    cut[i] = piece(whole, i).length;
    require(cut[i] <= kPieceBytes);
    other[i] = sizes[i % sizes.size()] % (kPieceBytes + 2);
  }
  require(joined_size("fuzz", 0, cut, chunk.capacity) == whole);
  try {
    const uint64_t joined = joined_size("fuzz", 0, other, chunk.capacity);
    require(joined <= chunk.capacity);
    for (uint64_t i = 0; i < pieces; ++i) require(other[i] == piece(joined, i).length);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_CODEC_ERROR);
  }

  Frames frames;
  try {
    frames = frame_slots("fuzz", sizes, chunk.capacity);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_CODEC_ERROR);
    return 0;
  }
  require(frames.total == ranks * chunk.capacity && frames.sizes.size() == sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i)
    require(frames.sizes[i] == sizes[i] && sizes[i] <= chunk.capacity &&
            frames.displacements[i] == i * chunk.capacity);

  GuardedBuffer gathered(frames.total);
  in.fill(gathered.data(), gathered.size());
  GuardedBuffer sum(4 * chunk.length);
  sum.poison();
  try {
    sum_messages("fuzz", gathered.data(), frames, reinterpret_cast<float *>(sum.data()),
                 chunk.length, (mode & 1) ? Into::overwrite : Into::add);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_CODEC_ERROR || e.status() == DLK_COMM_OUT_OF_MEMORY);
  }
  return 0;
}
