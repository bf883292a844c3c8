#include "comm/algorithm.hpp"

#include <cstring>

#include "comm/segments.hpp"

namespace dlk::comm {
namespace {

struct Entry {
  dlk_comm_algorithm algorithm;
  const char *name;
  dlk_codec_algorithm codec;  // 0: not compressed
};

constexpr Entry kEntries[] = {
    {DLK_COMM_ALGO_AUTO, "auto", dlk_codec_algorithm(0)},
    {DLK_COMM_ALGO_NATIVE, "native", dlk_codec_algorithm(0)},
    {DLK_COMM_ALGO_RING, "ring", dlk_codec_algorithm(0)},
    {DLK_COMM_ALGO_PS, "ps", dlk_codec_algorithm(0)},
    {DLK_COMM_ALGO_ONEBIT, "onebit", DLK_CODEC_ONEBIT},
    {DLK_COMM_ALGO_TOPK, "topk", DLK_CODEC_TOPK},
    {DLK_COMM_ALGO_INT8, "int8", DLK_CODEC_INT8},
    {DLK_COMM_ALGO_INT4, "int4", DLK_CODEC_INT4},
    {DLK_COMM_ALGO_FP16, "fp16", DLK_CODEC_FP16},
    {DLK_COMM_ALGO_BF16, "bf16", DLK_CODEC_BF16},
};

const Entry *find(dlk_comm_algorithm algorithm) {
  for (const Entry &e : kEntries)
    if (e.algorithm == algorithm) return &e;
  return nullptr;
}

}  // namespace

bool known_algorithm(int value) {
  if (value == DLK_COMM_ALGO_DEFAULT) return true;
  for (const Entry &e : kEntries)
    if (static_cast<int>(e.algorithm) == value) return true;
  return false;
}

const char *algorithm_name(dlk_comm_algorithm algorithm) {
  if (algorithm == DLK_COMM_ALGO_DEFAULT) return "default";
  const Entry *e = find(algorithm);
  return e ? e->name : "unknown";
}

const char *algorithm_names() {
  return "auto, native, ring, ps, onebit, topk, int8, int4, fp16, bf16";
}

bool parse_algorithm(const std::string &name, dlk_comm_algorithm &algorithm) {
  for (const Entry &e : kEntries)
    if (name == e.name) {
      algorithm = e.algorithm;
      return true;
    }
  return false;
}

dlk_codec_algorithm codec_of(dlk_comm_algorithm algorithm) {
  const Entry *e = find(algorithm);
  return e ? e->codec : dlk_codec_algorithm(0);
}

bool compressed(dlk_comm_algorithm algorithm) { return codec_of(algorithm) != 0; }

bool two_phase_compressed(dlk_comm_algorithm algorithm) {
  return compressed(algorithm) && algorithm != DLK_COMM_ALGO_TOPK;
}

ResidualLengths residual_lengths(dlk_comm_algorithm algorithm, uint64_t count, uint32_t ranks,
                                 uint32_t rank) {
  ResidualLengths lengths;
  if (!compressed(algorithm)) return lengths;
  lengths.worker = count;
  if (two_phase_compressed(algorithm)) lengths.server = split(count, ranks, rank).length;
  return lengths;
}

}  // namespace dlk::comm
