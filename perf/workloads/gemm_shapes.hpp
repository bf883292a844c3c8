// The GEMM shapes `dlk-perf gemm` measures, in named sets: what frameworks send
// to a GEMM library, from square sweeps to the lowered convolutions of ResNet-50.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlk::perf {

struct GemmShape {
  std::string set;   // the set it comes from
  std::string name;  // what it is, e.g. "res3 3x3" or "square"
  std::int64_t m, n, k;
};

// The set names, in the order `all` lists them: square, resnet50, transformer,
// skinny, primes.
const std::vector<std::string> &gemm_shape_set_names();

// The shapes of one set, or of every set for "all". Throws std::invalid_argument
// for an unknown name, listing the valid ones.
std::vector<GemmShape> gemm_shape_set(const std::string &name);

}  // namespace dlk::perf
