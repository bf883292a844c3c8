// Backward data at stride 2 x 2 on the AMX implicit GEMM (bf16). diff_src
// split by the parity (py, px) of its rows and columns is four stride-1
// convolutions of diff_dst, each with the forward's taps of that parity
// turned around: a 3x3 kernel with padding 1 gives phases of 1 x 1, 1 x 2,
// 2 x 1 and 2 x 2 taps, 9 in all, so no product is spent on the zeros a
// stride-1 convolution over diff_dst dilated by the stride would multiply (3
// in 4 of them). diff_dst is padded once into an NHWC image all four phases
// read, each phase runs the forward kernel (kernels/conv2d_amx_kernels.hpp)
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
#include <vector>

#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "backends/cpu_avx512/scratch.hpp"
#include "core/backend.hpp"

namespace dlk::cpu {

// The phases of backward data's args (the forward's shape).
struct AmxDataPhases {
  explicit AmxDataPhases(const core::Conv2dArgs &args);
  // One dimension (rows, or columns) of the phases of either parity.
  struct Axis {
    int64_t taps[2] = {};     // the phase's kernel extent
    int64_t first[2] = {};    // its tap 0 as the forward's kernel index (its parity's last)
    int64_t outputs[2] = {};  // diff_src's rows of that parity
    // diff_dst's row read by a phase's output 0 at its tap 0, both
    // parities alike (else no phases: valid false), and the rows of the
    // padded diff_dst that the phases read from there.
    int64_t offset = 0, padded = 0;
  };
  Axis rows, cols;
  bool valid = false;  // every phase has taps and outputs, and one offset per axis

  // Phase p (2 py + px) as a forward convolution of n images of the padded
  // diff_dst `src` into the compact NHWC image `dst`, weights prepacked.
  core::Conv2dArgs phase(const core::Conv2dArgs &args, int p, int64_t n, const void *src,
                         void *dst) const;
  // The forward's tap that each of phase p's taps reads.
  std::vector<int64_t> source_taps(const core::Conv2dArgs &args, int p) const;
};

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
  AmxDataPhases phases_;
  std::array<int64_t, 4> elems_{};
  size_t bytes_ = 0, stage_bytes_ = 0;
};

// diff_src from diff_dst and the phases' panels: `prepacked` (four), or
// packed per call into the scratch where nullptr.
void backward_data_amx_phases(const core::Conv2dArgs &args, int threads, Scratch &scratch,
                              const kernels::AmxConvWeights *prepacked);

}  // namespace dlk::cpu
