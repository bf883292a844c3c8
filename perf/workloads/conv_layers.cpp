#include "perf/workloads/conv_layers.hpp"

#include <algorithm>
#include <stdexcept>

#include "perf/workloads/resnet50_layers.hpp"

namespace dlk::perf {
namespace {

// name, c, h (= w), k, kernel, stride, pad
struct Row {
  const char *name;
  std::int64_t c, hw, k, kernel, stride, pad;
};

constexpr Row kVgg16[] = {
    {"conv1_1", 3, 224, 64, 3, 1, 1},    {"conv1_2", 64, 224, 64, 3, 1, 1},
    {"conv2_1", 64, 112, 128, 3, 1, 1},  {"conv2_2", 128, 112, 128, 3, 1, 1},
    {"conv3_1", 128, 56, 256, 3, 1, 1},  {"conv3_2", 256, 56, 256, 3, 1, 1},
    {"conv4_1", 256, 28, 512, 3, 1, 1},  {"conv4_2", 512, 28, 512, 3, 1, 1},
    {"conv5_x", 512, 14, 512, 3, 1, 1},
};

// ResNeXt-50 (32x4d, stride in the 3x3 as ResNet-50 v1.5): its distinct grouped
// 3x3 convolutions, 32 groups each.
constexpr Row kResNeXt50[] = {
    {"conv2_3x3", 128, 56, 128, 3, 1, 1},   {"conv3_1_3x3", 256, 56, 256, 3, 2, 1},
    {"conv3_3x3", 256, 28, 256, 3, 1, 1},   {"conv4_1_3x3", 512, 28, 512, 3, 2, 1},
    {"conv4_3x3", 512, 14, 512, 3, 1, 1},   {"conv5_1_3x3", 1024, 14, 1024, 3, 2, 1},
    {"conv5_3x3", 1024, 7, 1024, 3, 1, 1},
};
constexpr std::int64_t kResNeXtGroups = 32;

constexpr Row kLeNet5[] = {{"conv1", 1, 32, 6, 5, 1, 0}, {"conv2", 6, 14, 16, 5, 1, 0}};

// Depthwise (groups = c) with few channels and a channel multiplier m = k / c,
// at batch 64: the shapes either side of the rule that sends NHWC with m >= c
// below 16 channels to the GEMM (conv2d_depthwise.cpp).
constexpr Row kDepthwiseMultiplier[] = {
    {"c2_m1", 2, 32, 2, 5, 1, 0},    {"c2_m2", 2, 32, 4, 5, 1, 0},    {"c2_m6", 2, 32, 12, 5, 1, 0},
    {"c4_m1", 4, 32, 4, 5, 1, 0},    {"c4_m2", 4, 32, 8, 5, 1, 0},    {"c4_m4", 4, 32, 16, 5, 1, 0},
    {"c4_m6", 4, 32, 24, 5, 1, 0},   {"c8_m6", 8, 32, 48, 3, 1, 0},   {"c8_m8", 8, 32, 64, 3, 1, 0},
    {"c16_m16", 16, 32, 256, 3, 1, 0},
};

// 3x3 convolutions at 56 x 56 whose channels are not a whole number of the
// CPU kernels' k-quads (int8) or k-pairs (bf16), beside ones that are: the
// shapes either side of the channel-lane kernel's NHWC grouping
// (backends/cpu_avx512/kernels/conv2d_channel_lanes_kernels.hpp).
constexpr Row kRaggedChannels[] = {
    {"c28", 28, 56, 64, 3, 1, 1}, {"c29", 29, 56, 64, 3, 1, 1}, {"c30", 30, 56, 64, 3, 1, 1},
    {"c60", 60, 56, 64, 3, 1, 1}, {"c61", 61, 56, 64, 3, 1, 1}, {"c62", 62, 56, 64, 3, 1, 1},
};

template <size_t N>
void append(std::vector<ConvLayer> &out, const char *set, const Row (&rows)[N], std::int64_t batch,
            std::int64_t groups = 1) {
  for (const Row &r : rows)
    out.push_back({set, r.name, r.c, r.hw, r.hw, r.k, r.kernel, r.kernel, r.stride, r.pad, batch, groups});
}

void append_depthwise(std::vector<ConvLayer> &out, const char *set, std::int64_t batch) {
  for (const Row &r : kDepthwiseMultiplier)
    out.push_back({set, r.name, r.c, r.hw, r.hw, r.k, r.kernel, r.kernel, r.stride, r.pad, batch, r.c});
}

// ResNet-50's distinct convolutions (resnet50_layers.cpp has all 53), the first
// of each shape keeping its name.
void append_resnet50(std::vector<ConvLayer> &out, bool only_3x3) {
  for (const ResnetLayer &l : resnet50_layers()) {
    if (l.kind != ResnetLayer::Kind::conv || (only_3x3 && l.kernel != 3)) continue;
    const ConvLayer layer{"resnet50", l.name, l.c, l.h, l.w, l.k, l.kernel, l.kernel, l.stride, l.pad, 0};
    const bool seen = std::any_of(out.begin(), out.end(), [&](const ConvLayer &o) {
      return o.c == layer.c && o.h == layer.h && o.k == layer.k && o.kh == layer.kh &&
             o.stride == layer.stride && o.pad == layer.pad;
    });
    if (!seen) out.push_back(layer);
  }
}

}  // namespace

const std::vector<std::string> &conv_layer_sets() {
  static const std::vector<std::string> sets{"resnet50", "resnet50_3x3", "resnext50_3x3", "vgg16",
                                             "lenet5", "depthwise_multiplier", "ragged_channels"};
  return sets;
}

std::vector<ConvLayer> conv_layers(const std::string &set) {
  std::vector<ConvLayer> out;
  if (set == "resnet50") append_resnet50(out, false);
  else if (set == "resnet50_3x3") append_resnet50(out, true);
  else if (set == "resnext50_3x3") append(out, "resnext50", kResNeXt50, 0, kResNeXtGroups);
  else if (set == "vgg16") append(out, "vgg16", kVgg16, 0);
  else if (set == "lenet5") append(out, "lenet5", kLeNet5, 64);
  else if (set == "depthwise_multiplier") append_depthwise(out, "depthwise", 64);
  else if (set == "ragged_channels") append(out, "ragged", kRaggedChannels, 0);
  else throw std::invalid_argument("unknown layer set '" + set + "'");
  return out;
}

dlk_conv2d_desc conv_desc(const ConvLayer &l, std::int64_t batch) {
  dlk_conv2d_desc d;
  dlk_conv2d_desc_init(&d, DLK_DTYPE_F32, l.batch ? l.batch : batch, l.c, l.h, l.w, l.k, l.kh, l.kw);
  d.stride_h = d.stride_w = l.stride;
  d.pad_h = d.pad_w = l.pad;
  d.groups = l.groups;
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
