// A grouped convolution's weight gradient, group by group: each group's on the
// direct kernel (4 to 16 output channels a group, f32) or the channel-block
// kernel (more, or bf16 and f16 from 16; as its rule takes them), else on the
// direct kernel in parts of up to 16 of the group's output channels, each
// reading all its input channels (f32 groups of more than 16 over too few
// pixels for the channel-block kernel: ResNeXt-50 conv5 at batch 1, 32 a group,
// 49 pixels), the group (or part) a convolution of its own
// (conv2d_group_views.hpp), a thread each. A group's planes lie together in
// each image but not across images, so over several images (and in NHWC, whose
// groups' channels lie among the others', turned channel-major, the gradient
// computed in OIHW and turned into OHWI) each thread first copies its group's
// planes of every image into a compact batch of its own, which the kernel then
// runs in one call (f32 added each image's gradient from a call per image at
// 0.40-0.67x oneDNN-any on ResNeXt-50 conv4-conv5 at batch 32, 2 threads; the
// batch copied, 0.65-0.80x; bf16 cannot add rounded gradients). The GEMM per
// group and image it replaces packed im2col^T panels that only k/groups output
// channels reused (ResNeXt-50 conv2-conv5, 32 groups: 0.15-0.50x oneDNN-any).
#pragma once

#include <string>

#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Whether a grouped convolution's weight gradient runs so (a kernel takes its
// groups and every thread's scratch fits the bound).
bool conv2d_backward_weights_groups_apply(const core::Conv2dArgs &args, core::CpuIsa isa,
                                          int threads);
// diff_weights and diff_bias (if not null) so, on up to `threads` threads;
// returns its name in dlk_context_last_op.
std::string conv2d_backward_weights_groups(const core::Conv2dArgs &args, core::CpuIsa isa,
                                           int threads, Scratch &scratch);

}  // namespace dlk::cpu
