// Backward data of a grouped convolution at stride 2 x 2 with groups of 4 to
// 16 channels, on the wide-row kernel in phases (conv2d_data_phases.hpp):
// each image's groups a thread each (conv2d_group_views.hpp; NHWC's turned
// into NCHW planes and back), each group's four phases forward convolutions
// of its diff_dst planes, padded once for the four, on the wide-row kernel
// (kernels/conv2d_direct_kernels.hpp), their weights the phase's taps turned
// around (copied per group: OIHW with the group's cg output and kg input
// channels), into compact planes whose rows are then merged column by column
// into diff_src (kernels/interleave_kernels.hpp). The channel-lane kernel's
// phases, checked first, take groups from 16 channels (ResNeXt-50's conv4_1);
// conv3_1's groups of 8 ran the GEMM and col2im per group.
#pragma once

#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Whether backward data runs so: f32 or bf16 on the AVX-512 tier (not where
// bf16 runs on AMX), more than one group of 4 to 16 channels (each of diff_src
// and diff_dst), stride 2 x 2 without dilation where every phase has taps and
// reads diff_dst from its first row and column on (DataPhases valid, offsets
// not positive), the phases' convolutions within the wide-row kernel's rule
// (a phase of one tap too) and every thread's scratch within the bound.
bool backward_data_wide_rows_phases_apply(const core::Conv2dArgs &args, core::CpuIsa isa,
                                          int threads);

// diff_src from diff_dst and the weights, on up to `threads` threads.
void backward_data_wide_rows_phases(const core::Conv2dArgs &args, int threads,
                                    Scratch &scratch);

}  // namespace dlk::cpu
