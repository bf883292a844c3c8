// im2col panels written by a tier's vector instructions: the f32 and bf16 NCHW
// forward panels and the int8 NCHW A panel of conv2d_im2col_packer.cpp, whose
// element loops spent most of their time on the bookkeeping of short runs of pixels
// (ResNet-50's 3x3 layers: 17-25 % of an f32 forward call in the packer, 1
// thread; its int8 conv1: 4x the micro-kernel's time).
#pragma once

#include <cstdint>

#include "backends/cpu_avx512/conv2d_lowering.hpp"

namespace dlk::cpu::kernels {

// Taps [p0, p0 + kc) x output pixels [j0, j0 + cols) of the im2col matrix of
// one image and group of an NCHW f32 src (src points at the group's first
// channel), as `width`-wide rows: element (p, t) at out[p * width + t], 0 for
// padding taps and for t in [cols, width). width <= 64. Returns false, having
// written nothing, for shapes it does not take (the caller's loops do them).
using Im2colNchwF32 = bool (*)(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                               int64_t j0, int64_t cols, int width, float *out);
bool im2col_nchw_f32_avx512(const ConvShape &s, const float *src, int64_t p0, int64_t kc,
                            int64_t j0, int64_t cols, int width, float *out);

// The same for bf16 src, each element widened to f32 (the f32 GEMM's panel).
using Im2colNchwBf16AsF32 = bool (*)(const ConvShape &s, const uint16_t *src, int64_t p0,
                                     int64_t kc, int64_t j0, int64_t cols, int width, float *out);
bool im2col_nchw_bf16_as_f32_avx512(const ConvShape &s, const uint16_t *src, int64_t p0,
                                    int64_t kc, int64_t j0, int64_t cols, int width, float *out);

// The same for bf16 src in the bf16 GEMM's k-pairs, for its B (pixels as
// columns) or its A (pixels as rows) alike: element (p, t) at out[(p / 2) x 2 x
// width + 2 t + p % 2], 0 for padding taps, for t in [cols, width) and for p
// past kc in the last pair.
using Im2colNchwBf16Pairs = bool (*)(const ConvShape &s, const uint16_t *src, int64_t p0,
                                     int64_t kc, int64_t j0, int64_t cols, int width,
                                     uint16_t *out);
bool im2col_nchw_bf16_pairs_avx512(const ConvShape &s, const uint16_t *src, int64_t p0,
                                   int64_t kc, int64_t j0, int64_t cols, int width,
                                   uint16_t *out);

// The same for int8 src as the integer GEMM's A (pixels as rows): output
// pixels [j0, j0 + cols) x taps [p0, p0 + kc) as u8 k-quads, element (p, t) at
// out[(p / 4) x 4 x width + 4 t + p % 4]; each byte xor `flip` (0x80 turns s8
// into the u8 that GEMM packs), `pad` (the zero point, flipped) for padding
// taps, 0 for t in [cols, width) and for p past kc in the last quad.
using Im2colNchwU8Quads = bool (*)(const ConvShape &s, const uint8_t *src, int64_t p0,
                                   int64_t kc, int64_t j0, int64_t cols, int width, uint8_t flip,
                                   uint8_t pad, uint8_t *out);
bool im2col_nchw_u8_quads_avx512(const ConvShape &s, const uint8_t *src, int64_t p0, int64_t kc,
                                 int64_t j0, int64_t cols, int width, uint8_t flip, uint8_t pad,
                                 uint8_t *out);

// A tier's NCHW panel kernels; null where it has none (the element loops of
// conv2d_im2col_packer.cpp pack those panels).
struct Im2colNchwKernels {
  Im2colNchwF32 f32;
  Im2colNchwBf16AsF32 bf16_as_f32;
  Im2colNchwBf16Pairs bf16_pairs;
  Im2colNchwU8Quads u8_quads;
};

}  // namespace dlk::cpu::kernels
