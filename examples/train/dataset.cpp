#include "dataset.hpp"

#include <filesystem>

#include "idx_reader.hpp"

namespace dlk_train {

namespace {

// Fashion-MNIST's pixel mean and standard deviation (of p / 255, training set).
constexpr float kMean = 0.2860f, kStd = 0.3530f;

std::string find_file(const std::string &dir, const std::string &stem) {
  const std::filesystem::path base = std::filesystem::path(dir) / stem;
  const std::string gz = base.string() + ".gz";
  if (std::filesystem::exists(gz)) return gz;
  if (std::filesystem::exists(base)) return base.string();
  throw IdxError(gz + ": no such file (nor " + base.string() +
                 "); install Debian's dataset-fashion-mnist or pass --data DIR");
}

Split load_split(const std::string &dir, const std::string &prefix, const Shape &input,
                 int64_t classes, int64_t subset) {
  const std::string images_path = find_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_file(dir, prefix + "-labels-idx1-ubyte");
  IdxArray images = read_idx_file(images_path);
  IdxArray labels = read_idx_file(labels_path);
  if (images.dims.size() != 3 || images.dims[1] != input.h || images.dims[2] != input.w)
    throw IdxError(images_path + ": holds an array of " + std::to_string(images.dims.size()) +
                   " dimensions, not images of " + std::to_string(input.h) + "x" +
                   std::to_string(input.w));
  if (labels.dims.size() != 1)
    throw IdxError(labels_path + ": holds " + std::to_string(labels.dims.size()) +
                   " dimensions; labels have 1");
  if (labels.dims[0] != images.dims[0])
    throw IdxError(labels_path + ": holds " + std::to_string(labels.dims[0]) + " labels for " +
                   std::to_string(images.dims[0]) + " images in " + images_path);
  for (size_t i = 0; i < labels.data.size(); ++i)
    if (labels.data[i] >= classes)
      throw IdxError(labels_path + ": label " + std::to_string(i) + " is " +
                     std::to_string(labels.data[i]) + "; classes are 0 to " +
                     std::to_string(classes - 1));
  Split s;
  s.count = images.dims[0];
  if (subset > 0 && subset < s.count) s.count = subset;
  const size_t pixels = static_cast<size_t>(input.h * input.w);
  images.data.resize(static_cast<size_t>(s.count) * pixels);
  labels.data.resize(static_cast<size_t>(s.count));
  s.images = std::move(images.data);
  s.labels = std::move(labels.data);
  return s;
}

}  // namespace

Dataset load_dataset(const std::string &dir, const Shape &input, int64_t classes,
                     int64_t train_subset, int64_t test_subset) {
  Dataset d;
  d.train = load_split(dir, "train", input, classes, train_subset);
  d.test = load_split(dir, "t10k", input, classes, test_subset);
  return d;
}

void gather_batch(const Split &split, const std::vector<int32_t> &order, int64_t first, int64_t n,
                  int64_t pixels, float *x, int32_t *labels) {
  for (int64_t i = 0; i < n; ++i) {
    const int64_t index = order[static_cast<size_t>(first + i)];
    const uint8_t *src = split.images.data() + index * pixels;
    float *dst = x + i * pixels;
    for (int64_t p = 0; p < pixels; ++p)
      dst[p] = (static_cast<float>(src[p]) * (1.0f / 255.0f) - kMean) / kStd;
    labels[i] = split.labels[static_cast<size_t>(index)];
  }
}

}  // namespace dlk_train
