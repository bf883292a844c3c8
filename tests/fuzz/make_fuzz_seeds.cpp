// Writes the seed corpus of the decoder fuzzers: a few valid messages per
// algorithm. Run from the source tree to refresh tests/fuzz/corpus/:
//   build-fuzz/tests/fuzz/make_fuzz_seeds tests/fuzz/corpus
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "dlk/dlk_compress.hpp"

namespace {

std::vector<float> wave(size_t n) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = std::sin(0.37f * static_cast<float>(i)) * (1 + i % 5);
  return x;
}

void write(const std::string &path, const std::vector<uint8_t> &message) {
  if (FILE *f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(message.data(), 1, message.size(), f);
    std::fclose(f);
  } else {
    std::perror(path.c_str());
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  for (const auto algorithm : {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8, DLK_CODEC_INT4,
                               DLK_CODEC_FP16, DLK_CODEC_BF16}) {
    const std::string dir = root + "/" + dlk_compress_algorithm_name(algorithm);
    int seed = 0;
    for (const size_t n : {size_t(0), size_t(1), size_t(17), size_t(100), size_t(700)}) {
      dlk_codec_params p = dlk::compress::params(algorithm);
      if (p.block_size) p.block_size = n > 100 ? 64 : 16;
      p.topk_count = n / 8;
      p.rounding = seed % 2 ? DLK_CODEC_ROUND_STOCHASTIC : DLK_CODEC_ROUND_NEAREST_EVEN;
      const auto x = wave(n);
      write(dir + "/seed_" + std::to_string(seed++),
            dlk::compress::encode(p, x.data(), nullptr, n));
    }
  }
  return 0;
}
