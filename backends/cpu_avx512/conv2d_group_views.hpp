// A grouped convolution's groups, image by image, as convolutions of their
// own. In NCHW a group's planes of src and dst (of diff_src and diff_dst), its
// rows of the weights, its bias and its scales lie together, so a kernel made
// for one group runs each of them as it is; in NHWC a group's channels lie
// among the others' in every pixel, so its input channels are copied into a
// compact image first and its output channels into place after (or, for a
// kernel made for NCHW alone, turned into planes and back, its weights into
// OIHW). The channel-lane kernel runs so forward (conv2d_im2col.cpp) and on
// backward data's turned convolution (conv2d_backward_data.cpp), the wide-row
// kernel likewise on groups of fewer channels, and the weight-gradient kernels
// on each group's batch (conv2d_backward_weights.cpp), where the GEMM per group
// packed panels that only k/groups output channels reused.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/parallel_for.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Which tensors a group's convolution reads and writes: forward src and dst,
// backward data diff_dst and diff_src.
enum class GroupPass { forward, backward_data };

// How an NHWC group is staged: as compact NHWC images of its channels, or
// turned into NCHW planes, its weights into OIHW, for a kernel made for NCHW
// alone (the wide-row kernel).
enum class GroupLayout { nhwc, nchw };

// NHWC's compact images of a group's input and output channels, and (as
// NCHW) its weights (64-byte multiples); none in NCHW.
struct GroupStaging {
  size_t in_bytes = 0, out_bytes = 0, weights_bytes = 0;
};
GroupStaging group_staging(const core::Conv2dArgs &args, GroupPass pass,
                           GroupLayout layout = GroupLayout::nhwc);

// Group g of image `image` of args: one image, c/groups input and k/groups
// output channels, one group, its weights (and their gradient), bias (and its
// gradient) and scales per channel; its tensors of `pass` those of args
// (NCHW: src, dst, diff_src and diff_dst), or the compact `in` and `out`
// (NHWC).
core::Conv2dArgs conv2d_group_of_image(const core::Conv2dArgs &args, GroupPass pass,
                                       int64_t image, int64_t g, const void *in = nullptr,
                                       void *out = nullptr);

// NHWC: group g of image `image`'s input channels of `pass` copied into `in`,
// and its output channels from `out` into place (`layout` nchw: as planes);
// its weights (OHWI) turned into OIHW in `weights`.
void stage_group_input(const core::Conv2dArgs &args, GroupPass pass, int64_t image, int64_t g,
                       void *in, GroupLayout layout = GroupLayout::nhwc);
void place_group_output(const core::Conv2dArgs &args, GroupPass pass, int64_t image, int64_t g,
                        const void *out, GroupLayout layout = GroupLayout::nhwc);
void stage_group_weights(const core::Conv2dArgs &args, int64_t g, void *weights);

// Whether every thread of for_each_group_of_image has `kernel_bytes` and the
// staging of scratch of its own within the bound.
bool conv2d_group_views_fit(const core::Conv2dArgs &args, GroupPass pass, int threads,
                            size_t kernel_bytes, GroupLayout layout = GroupLayout::nhwc);

// Group g of NHWC image `image` as an NCHW convolution of its own, on its
// planes `in` and `out` and its OIHW `weights`.
core::Conv2dArgs conv2d_group_as_nchw(const core::Conv2dArgs &args, GroupPass pass,
                                      int64_t image, int64_t g, const void *in, void *out,
                                      const void *weights);

// run(group, scratch) on every image's groups, a thread each (up to
// `threads`), each thread with `kernel_bytes` of the context's scratch of its
// own, and NHWC's staging (`layout`); `call` and `why` name the scratch where
// the bound refuses it.
template <class Run>
void for_each_group_of_image(const core::Conv2dArgs &args, GroupPass pass, int threads,
                             size_t kernel_bytes, Scratch &scratch, const char *call,
                             const char *why, Run run, GroupLayout layout = GroupLayout::nhwc) {
  const int64_t groups = args.desc.groups, tasks = args.desc.n * groups;
  const int team = team_size(tasks, threads);
  const GroupStaging staging = group_staging(args, pass, layout);
  const size_t kernel = ScratchCarver::aligned(kernel_bytes);
  const size_t stride = kernel + staging.in_bytes + staging.out_bytes + staging.weights_bytes;
  auto *base = static_cast<unsigned char *>(
      scratch.get(stride * static_cast<size_t>(team), call, why));
  parallel_for(tasks, team, [&](int64_t task, int thread) {
    const int64_t image = task / groups, g = task % groups;
    unsigned char *own = base + stride * thread;
    if (args.desc.format != DLK_FORMAT_NHWC) {
      run(conv2d_group_of_image(args, pass, image, g), own);
      return;
    }
    unsigned char *in = own + kernel, *out = in + staging.in_bytes;
    unsigned char *weights = out + staging.out_bytes;
    stage_group_input(args, pass, image, g, in, layout);
    if (layout == GroupLayout::nchw) {
      stage_group_weights(args, g, weights);
      run(conv2d_group_as_nchw(args, pass, image, g, in, out, weights), own);
    } else {
      run(conv2d_group_of_image(args, pass, image, g, in, out), own);
    }
    place_group_output(args, pass, image, g, out, layout);
  });
}

}  // namespace dlk::cpu
