// Which kernel tier runs: DLK_COMPRESS_ISA, dlk_compress_set_isa, or the best
// tier the CPU has (xsimd's cpuid detection). Process-wide.
#pragma once

#include "compression/kernels/kernel_table.hpp"

namespace dlk::codec {

// The kernels of the selected tier. Throws Error when DLK_COMPRESS_ISA holds an
// unknown value or names a tier this CPU lacks.
const KernelTable &active_kernels(const char *call);

// name: "avx512", "avx2", "scalar", or nullptr for the default.
void select_isa(const char *call, const char *name);

}  // namespace dlk::codec
