// Fashion-MNIST's training and test sets from a directory of IDX files (Debian's
// dataset-fashion-mnist by default), checked for the shapes a model expects.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model_spec.hpp"

namespace dlk_train {

struct Split {
  int64_t count = 0;
  std::vector<uint8_t> images;  // count x h x w pixels
  std::vector<uint8_t> labels;  // count class numbers, each < classes
};

struct Dataset {
  Split train, test;
};

constexpr const char *kDefaultDataDir = "/usr/share/datasets/fashion-mnist";

// Reads <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]; a subset of 0
// keeps every image, else the first `subset` ones. Throws naming the file.
Dataset load_dataset(const std::string &dir, const Shape &input, int64_t classes,
                     int64_t train_subset, int64_t test_subset);

// Pixels of images [first, first + n) of `order` into x (n x h x w floats), normalized
// as docs/train.md says, and their labels.
void gather_batch(const Split &split, const std::vector<int32_t> &order, int64_t first, int64_t n,
                  int64_t pixels, float *x, int32_t *labels);

}  // namespace dlk_train
