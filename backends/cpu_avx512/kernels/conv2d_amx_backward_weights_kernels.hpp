// bf16 convolution backward weights as an implicit GEMM on AMX tiles, no
// im2col^T (kernels/conv2d_amx_backward_weights.cpp). For each tap (r, s),
// diff_weights[., r, s, .] is a GEMM whose k runs over the output positions
// of every image: sums[tap][ci][o] += src(ci, position + tap) x
// diff_dst(position, o). The positions are the forward kernel's flat ones
// (conv2d_amx_kernels.hpp): q = oh x wq + ow over phase planes of the padded
// image, so that a tap's 32 consecutive positions are 32 consecutive pixels
// of plane (r % sh, s % sw), (r / sh) x wq + s / sw on. Each image is copied
// into channel-major phase planes (a row a channel: an A tile is 16 channels
// x 32 positions, loaded at any tap's offset) and diff_dst into position
// pairs (a B tile row is 16 output channels x 2 positions, as tdpbf16ps
// takes k), zero at the positions past a row's end, so that those add
// nothing. A C tile block of 32 input x 32 output channels of one tap sums a
// group of images in the tiles (the group's operands sized to stay in L2),
// into f32 sums in scratch (at batch >= threads each thread its own share of
// the images into sums of its own, added up at the end; with fewer images,
// each its share of the output channels, preparing all of src itself); the
// sums are turned into diff_weights' layout and rounded to bf16 once,
// diff_bias summed while diff_dst is paired. Where one group holds the batch
// and no threads' sums are to be added (direct_ohwi), each block is turned in
// registers and rounded straight into diff_weights instead: NHWC's OHWI a
// block of one tap at a time; NCHW's OIHW, which puts a tap's input channels
// kh x kw apart, all of a block's taps into a stage, then each output
// channel's [tap][ci] turned into its run of OIHW.
#pragma once

#include <cstddef>
#include <cstdint>

#include "backends/cpu_avx512/kernels/conv2d_amx_kernels.hpp"
#include "core/backend.hpp"

namespace dlk::cpu::kernels {

struct AmxBackwardWeightsPlan : PhasePlanes {
  AmxBackwardWeightsPlan(const core::Conv2dArgs &args, int threads);
  int64_t plane = 0;             // a channel's phase plane, as far as the taps reach (x 32)
  int64_t src_elems = 0;         // an image's channel-major phase planes: sh x sw x c x plane
  int64_t diff_dst_elems = 0;    // an image's diff_dst in position pairs: flat x k
  int64_t images = 0;            // a group: images prepared, then summed, together
  int64_t stage_elems = 0;       // a thread's: NHWC src's row, NCHW diff_dst's 16 channels
  int64_t threads = 0;           // the stages planned for
  int64_t workers = 0;           // teams, each on its share of the images into its own sums
  bool split_outputs = false;    // or each on its share of the output channels
  // One group holding the whole batch, and no threads' sums to add: each
  // block of sums turned and rounded straight into OHWI diff_weights (NCHW:
  // a block's taps into a stage of block_elems a thread, turned into OIHW).
  bool direct_ohwi = false;
  int64_t block_elems = 0;
  size_t bytes = 0;              // the scratch
};

// Whether the kernel takes the convolution (the caller checks that bf16 GEMM
// runs on AMX here): bf16 src, diff_dst and diff_weights, NCHW or NHWC, one
// group, a kernel larger than 1x1 at any stride without dilation, padding not
// negative, input and output channels multiples of 32, at least 512 output
// positions over the batch (n x flat) but where direct_ohwi, the scratch
// within its bound.
bool conv2d_amx_backward_weights_applies(const core::Conv2dArgs &args, int threads);

// diff_weights (and diff_bias where given) from src and diff_dst, on up to
// `threads` threads; `scratch` holds plan.bytes.
void conv2d_amx_backward_weights(const core::Conv2dArgs &args, int threads,
                                 const AmxBackwardWeightsPlan &plan, void *scratch);

}  // namespace dlk::cpu::kernels
