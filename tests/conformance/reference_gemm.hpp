// Double-precision reference of dlk_gemm, written from the rules in dlk.h and
// sharing no code with any backend.
#pragma once

#include <cstdint>
#include <string>

#include "dlk/dlk.h"
#include "tests/conformance/expected.hpp"
#include "tests/conformance/host_tensor.hpp"

namespace dlk::conformance {

// Where the operands of a GEMM live: element (i, p) of op(A), (p, j) of op(B) and
// (i, j) of C in matrix `batch`, as offsets into their buffers in elements.
int64_t gemm_a_offset(const dlk_gemm_desc &d, int64_t batch, int64_t i, int64_t p);
int64_t gemm_b_offset(const dlk_gemm_desc &d, int64_t batch, int64_t p, int64_t j);
int64_t gemm_c_offset(const dlk_gemm_desc &d, int64_t batch, int64_t i, int64_t j);

// Names the element of C's buffer at `offset` ("b=0 i=3 j=7", or a gap).
std::string gemm_c_name(const dlk_gemm_desc &d, int64_t offset);

// Elements each buffer spans over the whole batch (0 when it holds none).
int64_t gemm_a_elements(const dlk_gemm_desc &d);
int64_t gemm_b_elements(const dlk_gemm_desc &d);
int64_t gemm_c_elements(const dlk_gemm_desc &d);

// C after the call, given A, B and C before it. Elements of C's buffer outside
// the matrices (leading-dimension and batch-stride gaps) must keep their values.
// Integer GEMM is exact; float GEMM within f32_result_bound of the exact value.
Expected reference_gemm(const dlk_gemm_desc &d, const HostTensor &a, const HostTensor &b,
                        const HostTensor &c);

}  // namespace dlk::conformance
