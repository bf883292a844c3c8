#include "perf/workloads/resnet50_layers.hpp"

namespace dlk::perf {

std::vector<ResnetLayer> resnet50_layers() {
  using Kind = ResnetLayer::Kind;
  std::vector<ResnetLayer> layers;
  const auto conv = [&](const std::string &name, int64_t c, int64_t size, int64_t k, int64_t kernel,
                        int64_t stride) {
    layers.push_back({Kind::conv, name, c, size, size, k, kernel, stride, kernel / 2});
  };
  conv("conv1", 3, 224, 64, 7, 2);
  layers.push_back({Kind::max_pool, "pool1", 64, 112, 112, 64, 3, 2, 1});
  // Stages 2-5: blocks, bottleneck width, input size; the first block of each
  // stage projects its input (1x1, stride 2 from stage 3 on) and strides its 3x3.
  struct Stage { int blocks; int64_t width, size; };
  const Stage stages[] = {{3, 64, 56}, {4, 128, 56}, {6, 256, 28}, {3, 512, 14}};
  int64_t channels = 64;
  for (int s = 0; s < 4; ++s) {
    const Stage &st = stages[s];
    const int64_t out = st.width * 4;
    const int64_t first_stride = s == 0 ? 1 : 2;
    for (int b = 0; b < st.blocks; ++b) {
      const std::string name = "res" + std::to_string(s + 2) + static_cast<char>('a' + b);
      const int64_t stride = b == 0 ? first_stride : 1;
      const int64_t in_size = b == 0 ? st.size : st.size / first_stride;
      conv(name + "_1x1a", channels, in_size, st.width, 1, 1);
      conv(name + "_3x3", st.width, in_size, st.width, 3, stride);
      conv(name + "_1x1b", st.width, in_size / stride, out, 1, 1);
      if (b == 0) conv(name + "_proj", channels, in_size, out, 1, stride);
      channels = out;
    }
  }
  layers.push_back({Kind::avg_pool, "pool5", 2048, 7, 7, 2048, 7, 7, 0});
  layers.push_back({Kind::fully_connected, "fc1000", 2048, 1, 1, 1000, 1, 1, 0});
  return layers;
}

}  // namespace dlk::perf
