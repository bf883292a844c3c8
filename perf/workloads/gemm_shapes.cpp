#include "perf/workloads/gemm_shapes.hpp"

#include <stdexcept>

namespace dlk::perf {
namespace {

std::vector<GemmShape> square() {
  std::vector<GemmShape> s;
  for (std::int64_t n : {64, 128, 256, 512, 1024, 2048, 4096}) s.push_back({"square", "square", n, n, n});
  return s;
}

// ResNet-50 v1.5 at 224 x 224, batch 1, lowered by im2col with NCHW weights as
// A: m = output channels, n = output pixels, k = input channels x kh x kw. One
// GEMM per distinct convolution.
std::vector<GemmShape> resnet50() {
  return {{"resnet50", "conv1 7x7/2", 64, 12544, 147},
          {"resnet50", "res2 1x1 reduce", 64, 3136, 256},
          {"resnet50", "res2 3x3", 64, 3136, 576},
          {"resnet50", "res2 1x1 expand", 256, 3136, 64},
          {"resnet50", "res3 1x1 reduce", 128, 784, 512},
          {"resnet50", "res3 3x3", 128, 784, 1152},
          {"resnet50", "res3 1x1 expand", 512, 784, 128},
          {"resnet50", "res4 1x1 reduce", 256, 196, 1024},
          {"resnet50", "res4 3x3", 256, 196, 2304},
          {"resnet50", "res4 1x1 expand", 1024, 196, 256},
          {"resnet50", "res5 1x1 reduce", 512, 49, 2048},
          {"resnet50", "res5 3x3", 512, 49, 4608},
          {"resnet50", "res5 1x1 expand", 2048, 49, 512}};
}

// BERT-base sized projections over 2048 tokens: QKV/output (768 -> 768) and the
// MLP (768 -> 3072 -> 768).
std::vector<GemmShape> transformer() {
  return {{"transformer", "attention projection", 2048, 768, 768},
          {"transformer", "mlp up", 2048, 3072, 768},
          {"transformer", "mlp down", 2048, 768, 3072}};
}

std::vector<GemmShape> skinny() {
  return {{"skinny", "m = 1 (gemv)", 1, 4096, 4096},
          {"skinny", "n = 1 (gemv)", 4096, 1, 4096},
          {"skinny", "tall-skinny", 16384, 64, 256},
          {"skinny", "short-wide", 64, 16384, 256},
          {"skinny", "small k", 2048, 2048, 16}};
}

// Where packing costs about as much as it saves: the shapes that chose the
// CPU backend's rule for its unpacked path (one row or column, tiny k, small).
std::vector<GemmShape> small() {
  return {{"small", "m = 1", 1, 1024, 1024},   {"small", "n = 1", 1024, 1, 1024},
          {"small", "k = 4", 256, 256, 4},     {"small", "k = 16", 512, 512, 16},
          {"small", "k = 32", 512, 512, 32},   {"small", "cube", 16, 16, 16},
          {"small", "cube", 32, 32, 32},       {"small", "cube", 48, 48, 48},
          {"small", "cube", 64, 64, 64},       {"small", "cube", 96, 96, 96},
          {"small", "cube", 128, 128, 128},    {"small", "m = 8", 8, 512, 256}};
}

std::vector<GemmShape> primes() {
  return {{"primes", "primes", 127, 127, 127},
          {"primes", "primes", 509, 509, 509},
          {"primes", "primes", 1021, 257, 509}};
}

}  // namespace

const std::vector<std::string> &gemm_shape_set_names() {
  static const std::vector<std::string> names = {"square", "resnet50", "transformer", "skinny",
                                                 "small", "primes"};
  return names;
}

std::vector<GemmShape> gemm_shape_set(const std::string &name) {
  if (name == "square") return square();
  if (name == "resnet50") return resnet50();
  if (name == "transformer") return transformer();
  if (name == "skinny") return skinny();
  if (name == "small") return small();
  if (name == "primes") return primes();
  if (name == "all") {
    std::vector<GemmShape> all;
    for (const std::string &set : gemm_shape_set_names()) {
      const std::vector<GemmShape> shapes = gemm_shape_set(set);
      all.insert(all.end(), shapes.begin(), shapes.end());
    }
    return all;
  }
  throw std::invalid_argument("unknown shape set '" + name +
                              "'; valid: square, resnet50, transformer, skinny, small, primes, all");
}

}  // namespace dlk::perf
