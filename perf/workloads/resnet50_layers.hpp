// ResNet-50 v1.5 (He et al. 2016; the stride on the 3x3 convolution, as in
// torchvision) at 224x224 as the ops dlk runs: 53 convolutions (bias and ReLU
// fused; the residual additions are not dlk ops and are left out), the max and
// average pooling, and the final fully connected layer as a GEMM.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace dlk::perf {

struct ResnetLayer {
  enum class Kind { conv, max_pool, avg_pool, fully_connected } kind;
  std::string name;
  int64_t c, h, w;           // input channels and size
  int64_t k;                 // output channels (conv, fc)
  int64_t kernel, stride, pad;
};

std::vector<ResnetLayer> resnet50_layers();

}  // namespace dlk::perf
