#include "perf/conv_layers.hpp"

#include <stdexcept>

namespace dlk::perf {
namespace {

// name, c, h (= w), k, kernel, stride, pad
struct Row {
  const char *name;
  std::int64_t c, hw, k, kernel, stride, pad;
};

constexpr Row kResNet50[] = {
    {"conv1", 3, 224, 64, 7, 2, 3},
    {"res2_1x1_64_64", 64, 56, 64, 1, 1, 0},     {"res2_3x3_64", 64, 56, 64, 3, 1, 1},
    {"res2_1x1_64_256", 64, 56, 256, 1, 1, 0},   {"res2_1x1_256_64", 256, 56, 64, 1, 1, 0},
    {"res3_1x1_256_128", 256, 56, 128, 1, 1, 0}, {"res3_3x3_128_s2", 128, 56, 128, 3, 2, 1},
    {"res3_1x1_128_512", 128, 28, 512, 1, 1, 0}, {"res3_down_256_512", 256, 56, 512, 1, 2, 0},
    {"res3_1x1_512_128", 512, 28, 128, 1, 1, 0}, {"res3_3x3_128", 128, 28, 128, 3, 1, 1},
    {"res4_1x1_512_256", 512, 28, 256, 1, 1, 0}, {"res4_3x3_256_s2", 256, 28, 256, 3, 2, 1},
    {"res4_1x1_256_1024", 256, 14, 1024, 1, 1, 0}, {"res4_down_512_1024", 512, 28, 1024, 1, 2, 0},
    {"res4_1x1_1024_256", 1024, 14, 256, 1, 1, 0}, {"res4_3x3_256", 256, 14, 256, 3, 1, 1},
    {"res5_1x1_1024_512", 1024, 14, 512, 1, 1, 0}, {"res5_3x3_512_s2", 512, 14, 512, 3, 2, 1},
    {"res5_1x1_512_2048", 512, 7, 2048, 1, 1, 0}, {"res5_down_1024_2048", 1024, 14, 2048, 1, 2, 0},
    {"res5_1x1_2048_512", 2048, 7, 512, 1, 1, 0}, {"res5_3x3_512", 512, 7, 512, 3, 1, 1},
};

constexpr Row kVgg16[] = {
    {"conv1_1", 3, 224, 64, 3, 1, 1},    {"conv1_2", 64, 224, 64, 3, 1, 1},
    {"conv2_1", 64, 112, 128, 3, 1, 1},  {"conv2_2", 128, 112, 128, 3, 1, 1},
    {"conv3_1", 128, 56, 256, 3, 1, 1},  {"conv3_2", 256, 56, 256, 3, 1, 1},
    {"conv4_1", 256, 28, 512, 3, 1, 1},  {"conv4_2", 512, 28, 512, 3, 1, 1},
    {"conv5_x", 512, 14, 512, 3, 1, 1},
};

constexpr Row kLeNet5[] = {{"conv1", 1, 32, 6, 5, 1, 0}, {"conv2", 6, 14, 16, 5, 1, 0}};

template <size_t N>
void append(std::vector<ConvLayer> &out, const char *set, const Row (&rows)[N], std::int64_t batch,
            bool only_3x3 = false) {
  for (const Row &r : rows)
    if (!only_3x3 || r.kernel == 3)
      out.push_back({set, r.name, r.c, r.hw, r.hw, r.k, r.kernel, r.kernel, r.stride, r.pad, batch});
}

}  // namespace

const std::vector<std::string> &conv_layer_sets() {
  static const std::vector<std::string> sets{"resnet50", "resnet50_3x3", "vgg16", "lenet5"};
  return sets;
}

std::vector<ConvLayer> conv_layers(const std::string &set) {
  std::vector<ConvLayer> out;
  if (set == "resnet50") append(out, "resnet50", kResNet50, 0);
  else if (set == "resnet50_3x3") append(out, "resnet50", kResNet50, 0, true);
  else if (set == "vgg16") append(out, "vgg16", kVgg16, 0);
  else if (set == "lenet5") append(out, "lenet5", kLeNet5, 64);
  else throw std::invalid_argument("unknown layer set '" + set + "'");
  return out;
}

dlk_conv2d_desc conv_desc(const ConvLayer &l, std::int64_t batch) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, l.batch ? l.batch : batch, l.c, l.h, l.w, l.k, l.kh, l.kw);
  d.stride_h = d.stride_w = l.stride;
  d.pad_h = d.pad_w = l.pad;
  return d;
}

const std::vector<PoolLayer> &pool_layers() {
  static const std::vector<PoolLayer> layers{
      {"vgg16_pool1_2x2", DLK_POOL_MAX, 64, 224, 224, 2, 2, 0},
      {"vgg16_pool2_2x2", DLK_POOL_MAX, 128, 112, 112, 2, 2, 0},
      {"vgg16_pool3_2x2", DLK_POOL_MAX, 256, 56, 56, 2, 2, 0},
      {"vgg16_pool4_2x2", DLK_POOL_MAX, 512, 28, 28, 2, 2, 0},
      {"vgg16_pool5_2x2", DLK_POOL_MAX, 512, 14, 14, 2, 2, 0},
      {"resnet50_pool_3x3_s2", DLK_POOL_MAX, 64, 112, 112, 3, 2, 1},
      {"resnet50_global_avg", DLK_POOL_AVG_EXCLUDE_PADDING, 2048, 7, 7, 7, 1, 0},
  };
  return layers;
}

dlk_pool2d_desc pool_desc(const PoolLayer &l, std::int64_t batch) {
  dlk_pool2d_desc d;
  dlk_pool2d_desc_init(&d, l.kind, DLK_DTYPE_F32, batch, l.c, l.h, l.w, l.kernel, l.kernel);
  d.stride_h = d.stride_w = l.stride;
  d.pad_h = d.pad_w = l.pad;
  return d;
}

}  // namespace dlk::perf
