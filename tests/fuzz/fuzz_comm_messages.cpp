// libFuzzer target: what a rank receives from its peers in a compressed
// all-reduce, through the functions topk and the two-phase algorithms use
// (comm/message_frames.hpp): the message sizes the peers announce (topk's
// MPI_Allgather), the frames built from them, and the gathered bytes decoded and
// summed in rank order. Input:
//   u8 ranks - 1 (mod 8), u8 codec (mod 6), u8 mode, u16 element count,
//   one u64 announced size per rank, then the gathered bytes (repeated to fill).
// mode bit 0: the first message overwrites the sum (two-phase) or adds (topk);
// bit 1: sizes taken modulo the largest message + 1 (mostly plausible) instead
// of raw. A refused size must come with DLK_COMM_CODEC_ERROR (larger than any
// message of the call) or DLK_COMM_INVALID_ARGUMENT (beyond one MPI call); an
// accepted framing must lie end to end within INT_MAX bytes; a refused message
// with DLK_COMM_CODEC_ERROR. The gathered bytes and the sum are guarded buffers.
#include <climits>
#include <cstring>
#include <vector>

#include "comm/error.hpp"
#include "comm/message_frames.hpp"
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
  size_t largest = 0;
  require(dlk_compress_max_message_size(&params, count, &largest) == DLK_CODEC_SUCCESS);

  std::vector<uint64_t> sizes(ranks);
  for (uint64_t &s : sizes) s = (mode & 2) ? u64(in) % (largest + 1) : u64(in);

  Frames frames;
  try {
    frames = frame_messages("fuzz", sizes, largest);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_CODEC_ERROR || e.status() == DLK_COMM_INVALID_ARGUMENT);
    return 0;
  }
  require(frames.total <= INT_MAX && frames.sizes.size() == sizes.size());
  uint64_t end = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    require(sizes[i] <= largest && frames.sizes[i] >= 0 && uint64_t(frames.sizes[i]) == sizes[i]);
    require(frames.displacements[i] >= 0 && uint64_t(frames.displacements[i]) == end);
    end += sizes[i];
  }
  require(end == frames.total);

  GuardedBuffer gathered(frames.total);
  in.fill(gathered.data(), gathered.size());
  GuardedBuffer sum(4 * count);
  sum.poison();
  try {
    sum_messages("fuzz", gathered.data(), frames, reinterpret_cast<float *>(sum.data()), count,
                 (mode & 1) ? Into::overwrite : Into::add);
  } catch (const Error &e) {
    require(e.status() == DLK_COMM_CODEC_ERROR || e.status() == DLK_COMM_OUT_OF_MEMORY);
  }
  return 0;
}
