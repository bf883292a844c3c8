// The loops of a GEMM whose C is one row or one column (m == 1 or n == 1) for
// bf16 and int8 operands, read where the caller keeps them (gemm_gemv.cpp says
// when they run). Such a product uses each element of its matrix operand once,
// so packing it would only add a second pass over memory. Each tier's file
// (gemv_<tier>.cpp) builds the one set of loops, gemv_tier.inc, with its flags.
//
// Both shapes are one matrix M (`rows` outputs x k) times one vector x:
//
//   acc[r] = sum_p M(r, p) * x(p),  M(r, p) at m[r * rs + p * ps], x(p) at x[p * xs]
//
// (m == 1: M is B^T and x A's row; n == 1: M is A and x B's column). Two forms,
// by which stride of M is 1: `axpy` (rs == 1: lanes along the outputs, M's
// columns added in scaled) and `dot` (ps == 1 and xs == 1: lanes along k, each
// output a dot product).
#pragma once

#include <cstdint>

namespace dlk::cpu::kernels {

struct GemvShape {
  int64_t rows, k;
  int64_t rs, ps, xs;
};

// f32 sums of bf16 products.
using GemvBf16 = void (*)(const GemvShape &s, const uint16_t *m, const uint16_t *x, float *acc);
// Exact integer sums of (M - m_zero)(x - x_zero), wrapping modulo 2^32 as the
// blocked kernels do; M and x are u8 or s8 (`m_signed`, `x_signed`).
struct GemvInt8Operands {
  const uint8_t *m, *x;
  bool m_signed, x_signed;
  int32_t m_zero, x_zero;
};
using GemvInt8 = void (*)(const GemvShape &s, const GemvInt8Operands &o, int32_t *acc);

void gemv_bf16_generic(const GemvShape &s, const uint16_t *m, const uint16_t *x, float *acc);
void gemv_bf16_avx2(const GemvShape &s, const uint16_t *m, const uint16_t *x, float *acc);
void gemv_bf16_avx512(const GemvShape &s, const uint16_t *m, const uint16_t *x, float *acc);
void gemv_int8_generic(const GemvShape &s, const GemvInt8Operands &o, int32_t *acc);
void gemv_int8_avx2(const GemvShape &s, const GemvInt8Operands &o, int32_t *acc);
void gemv_int8_avx512(const GemvShape &s, const GemvInt8Operands &o, int32_t *acc);

}  // namespace dlk::cpu::kernels
