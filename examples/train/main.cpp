// dlk-train: trains a CNN on Fashion-MNIST with dlk's ops, data parallel over
// MPI through libdlk_comm's synchronizer (docs/train.md).
#include <cstdio>
#include <exception>

#include "describe.hpp"
#include "options.hpp"

int main(int argc, char **argv) {
  dlk_train::Options options;
  if (const auto code = dlk_train::parse_options(argc, argv, options)) return *code;
  try {
    if (options.describe) {
      std::printf("%s\n", dlk_train::describe(dlk_train::make_model_spec(options.model)).dump(2).c_str());
      return 0;
    }
    std::fprintf(stderr, "dlk-train: training is not built yet; only --describe works\n");
    return 2;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dlk-train: %s\n", e.what());
    return 1;
  }
}
