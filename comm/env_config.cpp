#include "comm/env_config.hpp"

#include <cstdlib>
#include <string>

#include "comm/algorithm.hpp"
#include "comm/error.hpp"

namespace dlk::comm {

const std::vector<EnvVar> &env_vars() {
  static const std::vector<EnvVar> vars = {
      {"DLK_COMM_ALGO", "auto, native, ring, ps, onebit, topk, int8, int4, fp16, bf16", "native",
       "all-reduce algorithm of buffers whose configuration says 'default'"},
      {"DLK_VERBOSE", "0, 1, 2", "0",
       "1: one line per all-reduce on stderr (rank 0); 2: also auto's choices"},
  };
  return vars;
}

dlk_comm_algorithm default_algorithm(const char *call) {
  const char *value = std::getenv("DLK_COMM_ALGO");
  if (!value) return DLK_COMM_ALGO_NATIVE;
  dlk_comm_algorithm algorithm;
  if (!parse_algorithm(value, algorithm))
    throw_invalid(call, "DLK_COMM_ALGO",
                  "has unknown value '" + std::string(value) +
                      "'; valid values: " + algorithm_names());
  return algorithm;
}

int verbose_level(const char *call) {
  const char *value = std::getenv("DLK_VERBOSE");
  if (!value) return 0;
  const std::string v = value;
  if (v == "0" || v == "1" || v == "2") return v[0] - '0';
  throw_invalid(call, "DLK_VERBOSE", "has value '" + v + "'; valid values: 0, 1, 2");
}

}  // namespace dlk::comm
