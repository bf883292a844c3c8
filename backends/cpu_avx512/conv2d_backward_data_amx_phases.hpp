// Backward data at stride 2 x 2 on the AMX implicit GEMM (bf16), in phases
// (conv2d_data_phases.hpp). diff_dst is padded once into an NHWC image all
// four phases read, each phase runs the forward kernel (kernels/conv2d_amx_kernels.hpp)
// into a compact NHWC image of its pixels, and those are interleaved into
// diff_src (NCHW through an NHWC image and transposes). The phases' panels
// are packed per call, where they cost no more than the stride-1 turned
// convolution's do against the GEMM and col2im (AmxWeights::turned's floor),
// or once before (dlk_conv2d_weights_create_for). Against the GEMM and
// col2im, Intel Xeon model 167, ResNet-50 bf16, x oneDNN-any, 1 thread,
// batch 1, per call: res3a_3x3 0.52 -> 1.21 NCHW, 0.96 -> 1.68 NHWC,
// res4a_3x3 0.65 -> 1.03, 0.72 -> 1.37 (with NCHW's KRSC stage made per
// phase, res4a 0.66); packed, res3a-res5a 1.37-2.43; batch 32, 2 threads,
// per call 0.59-0.80 -> 0.98-2.42 (docs/conv_pool_speed.md, thirtieth
// sitting).
#pragma once

#include <array>
#include <cstdint>

#include "backends/cpu_avx512/conv2d_data_phases.hpp"
#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// Whether backward data runs in phases on AMX tiles, its panels `prepacked`
// or packed per call.
bool backward_data_amx_phases_apply(const core::Conv2dArgs &args, core::CpuIsa isa, int threads,
                                    bool prepacked);

// The four phases' panels (each as the forward kernel packs a convolution's).
class AmxPhasePanels {
 public:
  AmxPhasePanels(const core::Conv2dArgs &args, int threads);
  size_t bytes() const { return bytes_; }
  size_t stage_bytes() const { return stage_bytes_; }
  // Packs into `panels` (bytes()), `stage` (stage_bytes()) holding the
  // weights in KRSC (NCHW).
  void pack(const core::Conv2dArgs &args, int threads, void *panels, void *stage,
            std::array<kernels::AmxConvWeights, 4> &phases) const;

 private:
  DataPhases phases_;
  std::array<int64_t, 4> elems_{};
  size_t bytes_ = 0, stage_bytes_ = 0;
};

// diff_src from diff_dst and the phases' panels: `prepacked` (four), or
// packed per call into the scratch where nullptr.
void backward_data_amx_phases(const core::Conv2dArgs &args, int threads, Scratch &scratch,
                              const kernels::AmxConvWeights *prepacked);

}  // namespace dlk::cpu
