// The convolution and pooling layers `dlk-perf conv` and `dlk-perf pool` time:
// every distinct convolution of ResNet-50 (from resnet50_layers.hpp: v1.5, stride
// in the 3x3), ResNeXt-50 32x4d's grouped 3x3 convolutions, VGG-16's and
// LeNet-5's, and the pooling layers of ResNet-50 and VGG-16. NCHW.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dlk/dlk.h"

namespace dlk::perf {

struct ConvLayer {
  std::string set, name;
  std::int64_t c, h, w, k, kh, kw, stride, pad;
  std::int64_t batch;  // 0: the batch the command asks for
  std::int64_t groups = 1;
};

// Sets: resnet50, resnet50_3x3 (its 3x3 layers alone), resnext50_3x3 (32 groups),
// vgg16, lenet5 (batch 64).
// Throws std::invalid_argument for an unknown set.
std::vector<ConvLayer> conv_layers(const std::string &set);
const std::vector<std::string> &conv_layer_sets();

dlk_conv2d_desc conv_desc(const ConvLayer &layer, std::int64_t batch);

struct PoolLayer {
  std::string name;
  dlk_pool_kind kind;
  std::int64_t c, h, w, kernel, stride, pad;
};

// maxpool 2x2/2 (VGG-16's five), maxpool 3x3/2 (ResNet-50's stem), global
// average pool (ResNet-50's head).
const std::vector<PoolLayer> &pool_layers();

dlk_pool2d_desc pool_desc(const PoolLayer &layer, std::int64_t batch);

}  // namespace dlk::perf
