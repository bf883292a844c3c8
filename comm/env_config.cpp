#include "comm/env_config.hpp"

#include <string>

#include "comm/algorithm.hpp"
#include "comm/chunk_plan.hpp"
#include "comm/error.hpp"
#include "common/env_value.hpp"

namespace dlk::comm {

const std::vector<EnvVar> &env_vars() {
  static const std::vector<EnvVar> vars = {
      {"DLK_COMM_ALGO", "auto, native, ring, ps, onebit, topk, int8, int4, fp16, bf16", "native",
       "all-reduce algorithm of buffers whose configuration says 'default'"},
      {"DLK_COMM_CHUNK_BYTES", "4096 to 268435456", "1048576",
       "bytes of float gradient per pipelined chunk of onebit, int8, int4, fp16, bf16 and "
       "topk (rounded up to whole codec blocks; every rank must use the same value)"},
      {"DLK_VERBOSE", "0, 1, 2", "0",
       "1: one line per all-reduce on stderr (rank 0), and auto's choices"},
  };
  return vars;
}

dlk_comm_algorithm default_algorithm(const char *call) {
  const auto value = env::read("DLK_COMM_ALGO");
  if (!value) return DLK_COMM_ALGO_NATIVE;
  static const std::vector<std::string> names = {"auto", "native", "ring", "ps",   "onebit",
                                                 "topk", "int8",   "int4", "fp16", "bf16"};
  size_t index = 0;
  std::string rule;
  if (!env::parse_choice(*value, names, index, rule)) throw_invalid(call, "DLK_COMM_ALGO", rule);
  dlk_comm_algorithm algorithm = DLK_COMM_ALGO_NATIVE;
  parse_algorithm(names[index], algorithm);
  return algorithm;
}

uint64_t chunk_bytes(const char *call) {
  const auto value = env::read("DLK_COMM_CHUNK_BYTES");
  if (!value) return kDefaultChunkBytes;
  long long bytes = 0;
  std::string rule;
  if (!env::parse_integer(*value, static_cast<long long>(kMinChunkBytes),
                          static_cast<long long>(kMaxChunkBytes), bytes, rule))
    throw_invalid(call, "DLK_COMM_CHUNK_BYTES", rule);
  return static_cast<uint64_t>(bytes);
}

int verbose_level(const char *call) {
  const auto value = env::read("DLK_VERBOSE");
  if (!value) return 0;
  long long level = 0;
  std::string rule;
  if (!env::parse_integer(*value, 0, 2, level, rule)) throw_invalid(call, "DLK_VERBOSE", rule);
  return static_cast<int>(level);
}

}  // namespace dlk::comm
