#include "backends/cpu_avx512/gemm_kernels.hpp"

#include <unistd.h>

#include <algorithm>
#include <type_traits>

#include "backends/cpu_avx512/cpu_peak.hpp"

namespace dlk::cpu {
namespace {

int64_t cache_bytes(int name, int64_t fallback) {
  const long v = sysconf(name);
  return v > 0 ? v : fallback;
}

int64_t round_down(int64_t v, int64_t multiple) {
  return std::max(multiple, v / multiple * multiple);
}

template <class Kernel>
GemmKernel<Kernel> kernel(Kernel run, const char *name, int mr, int nr, int elem_bytes,
                          bool reads_a_in_place = false, bool reads_b_in_place = false,
                          bool reads_a_columns_in_place = false, bool stores_in_tile = false,
                          bool sums_tail_columns = false) {
  const int64_t l1 = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 0);
  const int64_t l2 = cache_bytes(_SC_LEVEL2_CACHE_SIZE, 0);
  const int64_t l3 = cache_bytes(_SC_LEVEL3_CACHE_SIZE, 0);
  return {run, name, derive_blocking(mr, nr, elem_bytes, l1, l2, l3), reads_a_in_place,
          reads_b_in_place, reads_a_columns_in_place, stores_in_tile, sums_tail_columns};
}

// An AMX kernel (32 x 32, A read by rows) and its k block: the tile products
// read A and B from memory at 16 times the AVX-512 kernels' rate, so both
// micro-panels stay within two thirds of L1 rather than A's alone (KC 256
// bf16 on a 48 KiB L1), in whole tile steps (64 bytes of k). Intel Xeon model
// 167, dlk_gemm bf16 on ResNet-50's im2col shapes, 1 thread, against the 768
// derive_blocking gives: 1.0-1.35x (res3 3x3, k = 1152: 0.9x).
template <class Kernel>
GemmKernel<Kernel> amx_kernel(Kernel run, const char *name, int elem_bytes) {
  GemmKernel<Kernel> k = kernel(run, name, 32, 32, elem_bytes, true, false, false,
                                std::is_same_v<Kernel, kernels::GemmBf16Microkernel>, false);
  const int64_t l1 = cache_bytes(_SC_LEVEL1_DCACHE_SIZE, 32 << 10);
  const int64_t step = 64 / elem_bytes;
  k.blocking.kc = std::max<int64_t>(step, 2 * l1 / 3 / (64 * elem_bytes) / step * step);
  return k;
}

}  // namespace

GemmBlocking derive_blocking(int mr, int nr, int elem_bytes, int64_t l1, int64_t l2, int64_t l3) {
  if (l1 <= 0) l1 = 32 << 10;
  if (l2 <= 0) l2 = 512 << 10;
  if (l3 <= 0) l3 = 4 << 20;
  GemmBlocking b{mr, nr, 0, 0, 0};
  // After the analytical model of Low et al. (BLIS, TOMS 2016), adjusted by
  // measurement on Zen 4 (1 MiB L2): a long k block pays for the C tile's
  // load and store, so KC is as long as an A micro-panel (MR x KC) that fits L1
  // allows, up to 2 KiB of k per panel row: 512 f32 (KC 512 ran 5-8 % faster
  // than KC 256 with the 14 x 32 kernel), 1024 bf16, 2048 int8 (4-6 % faster
  // than 512, where a k-quad kernel ran a quarter of f32's iterations per C
  // tile); the A block (MC x KC) takes half of L2; the shared B block (KC x NC)
  // half of the L3, at most 4096 columns.
  b.kc = std::clamp<int64_t>(l1 / (int64_t{mr} * elem_bytes) / 64 * 64, 128, 2048 / elem_bytes);
  b.mc = std::clamp<int64_t>(round_down(l2 / 2 / (b.kc * elem_bytes), mr), mr, 4096);
  b.nc = std::clamp<int64_t>(round_down(l3 / 2 / (b.kc * elem_bytes), nr), nr, 4096);
  return b;
}

const GemmKernelSet &gemm_kernel_set(core::CpuIsa isa) {
  using namespace kernels;
  static constexpr GemmPackKernels generic_packing{
      pack_k_contiguous_generic, pack_panel_contiguous_generic, pack_column_sums_generic,
      nullptr};
  // int8 kernels read 1-byte operands in k-quads; every tier sums exactly.
  static const GemmKernelSet scalar{
      kernel(gemm_f32_generic_4x8, "scalar:gemm_f32_4x8", 4, 8, 4),
      kernel(gemm_s32_generic_4x8, "scalar:gemm_u8s8s32_4x8", 4, 8, 1), {}, {}, {}, {}, {},
      generic_packing, nullptr};
  static const GemmKernelSet avx2{
      kernel(gemm_f32_avx2_6x16, "avx2:gemm_f32_6x16", 6, 16, 4),
      kernel(gemm_s32_avx2_6x8, "avx2:gemm_u8s8s32_6x8", 6, 8, 1), {}, {}, {}, {}, {},
      generic_packing,
      nullptr};
  // The avx512 tier needs F, BW, VL and DQ; VNNI and BF16 are further CPUID bits.
  // Without BF16, or where vdpbf16ps runs at half the FMAs' rate (Intel's cores:
  // bf16_dot_outpaces_fma), bf16 is converted to f32 while packing, as f16 always is.
  // The AMX kernels are built with AVX512_BF16 (their f32 and bf16 stores).
  const core::CpuFeatures &amx = core::cpu_features();
  static const GemmKernelSet avx512{
      kernel(gemm_f32_avx512_14x32, "avx512:gemm_f32_14x32", 14, 32, 4, true, true, true, true,
             true),
      core::cpu_features().avx512_vnni
          ? kernel(gemm_s32_avx512vnni_14x32, "avx512:gemm_u8s8s32_vnni_14x32", 14, 32, 1, true,
                   false, false, true, true)
          : kernel(gemm_s32_generic_4x8, "avx512:gemm_u8s8s32_4x8", 4, 8, 1),
      core::cpu_features().avx512_vnni
          ? kernel(gemm_s8u8s32_avx512vnni_14x32, "avx512:gemm_s8u8s32_vnni_14x32", 14, 32, 1,
                   true, false, false, true, true)
          : GemmKernel<GemmS8U8Microkernel>{},
      bf16_dot_outpaces_fma(core::cpu_features())
          ? kernel(gemm_bf16_avx512bf16_14x32, "avx512:gemm_bf16_dpbf16_14x32", 14, 32, 2, true,
                   true, false, true, true)
          : GemmKernel<GemmBf16Microkernel>{},
      amx.amx_bf16 && amx.avx512_bf16
          ? amx_kernel(gemm_bf16_amx_32x32, "avx512:gemm_bf16_amx_32x32", 2)
          : GemmKernel<GemmBf16Microkernel>{},
      amx.amx_int8 && amx.avx512_bf16
          ? amx_kernel(gemm_s32_amx_32x32, "avx512:gemm_u8s8s32_amx_32x32", 1)
          : GemmKernel<GemmS32Microkernel>{},
      amx.amx_int8 && amx.avx512_bf16
          ? amx_kernel(gemm_s8u8s32_amx_32x32, "avx512:gemm_s8u8s32_amx_32x32", 1)
          : GemmKernel<GemmS8U8Microkernel>{},
      {pack_k_contiguous_avx512, pack_panel_contiguous_avx512, pack_column_sums_avx512,
       pack_bf16_as_f32_avx512},
      gemm_store_s32_avx512, round_to_bf16_avx512};
  switch (isa) {
    case core::CpuIsa::avx512: return avx512;
    case core::CpuIsa::avx2: return avx2;
    case core::CpuIsa::scalar: break;
  }
  return scalar;
}

}  // namespace dlk::cpu
