// A grouped NCHW convolution's groups, image by image, as convolutions of
// their own. In NCHW a group's planes of src and dst (of diff_src and
// diff_dst), its rows of the weights, its bias and its scales lie together, so
// a kernel made for one group runs each of them as it is: the channel-lane
// kernel forward (conv2d_im2col.cpp) and on backward data's turned
// convolution (conv2d_backward_data.cpp), where the GEMM per group packed
// panels that only k/groups output channels reused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Group g of image `image` of NCHW args: one image, c/groups input and
// k/groups output channels, one group, the forward's and backward data's
// tensors, the bias and the scales per channel moved to the group's part.
core::Conv2dArgs conv2d_group_of_image(const core::Conv2dArgs &args, int64_t image, int64_t g);

// Whether every thread of a group_views run has `bytes` of scratch of its own
// within the bound.
bool conv2d_group_views_fit(const core::Conv2dArgs &args, int threads, size_t bytes);

// run(group, scratch) on every image's groups, a thread each (up to
// `threads`), each thread with `bytes` of the context's scratch of its own;
// `call` and `why` name the scratch where the bound refuses it.
template <class Run>
void for_each_group_of_image(const core::Conv2dArgs &args, int threads, size_t bytes,
                             Scratch &scratch, const char *call, const char *why, Run run) {
  const int64_t groups = args.desc.groups, tasks = args.desc.n * groups;
  const int team = team_size(tasks, threads);
  const size_t stride = ScratchCarver::aligned(bytes);
  auto *base = static_cast<unsigned char *>(
      scratch.get(stride * static_cast<size_t>(team), call, why));
  parallel_for(tasks, team, [&](int64_t task, int thread) {
    run(conv2d_group_of_image(args, task / groups, task % groups), base + stride * thread);
  });
}

}  // namespace dlk::cpu
