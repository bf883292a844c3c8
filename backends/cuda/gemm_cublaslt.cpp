#include "backends/cuda/gemm_cublaslt.hpp"

#include <string>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/gemm_kernels.hpp"

namespace dlk::cuda {
namespace {

// NVIDIA's recommendation for Hopper; less only narrows the heuristic's choice.
constexpr size_t kWorkspaceBytes = size_t{32} << 20;

cudaDataType_t lt_type(dlk_dtype t) {
  switch (t) {
    case DLK_DTYPE_F16: return CUDA_R_16F;
    case DLK_DTYPE_BF16: return CUDA_R_16BF;
    case DLK_DTYPE_S8: return CUDA_R_8I;
    case DLK_DTYPE_S32: return CUDA_R_32I;
    default: return CUDA_R_32F;
  }
}

cublasComputeType_t lt_compute(GemmCompute c) {
  switch (c) {
    case GemmCompute::tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case GemmCompute::s32: return CUBLAS_COMPUTE_32I;
    default: return CUBLAS_COMPUTE_32F;
  }
}

const char *compute_name(GemmCompute c) {
  switch (c) {
    case GemmCompute::tf32: return "tf32";
    case GemmCompute::s32: return "s32";
    default: return "f32";
  }
}

template <class T>
void set_attribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr, const T &value) {
  check_cublas(cublasLtMatmulDescSetAttribute(desc, attr, &value, sizeof(value)),
               "cublasLtMatmulDescSetAttribute");
}
template <class T>
void set_attribute(cublasLtMatrixLayout_t layout, cublasLtMatrixLayoutAttribute_t attr, const T &value) {
  check_cublas(cublasLtMatrixLayoutSetAttribute(layout, attr, &value, sizeof(value)),
               "cublasLtMatrixLayoutSetAttribute");
}
template <class T>
void set_attribute(cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr,
                   const T &value) {
  check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value)),
               "cublasLtMatmulPreferenceSetAttribute");
}

}  // namespace

bool lt_gemm_supports(dlk_dtype a, dlk_dtype b, dlk_dtype c) {
  // Every GEMM signature of core/op_types.hpp: float types (f32 in, f32 out; f16
  // or bf16 in, same or f32 out) and int8 (u8/s8 x s8 into s32, f32, s8, u8).
  if (a == DLK_DTYPE_U8 || a == DLK_DTYPE_S8)
    return b == DLK_DTYPE_S8 && (c == DLK_DTYPE_S32 || c == DLK_DTYPE_F32 || c == DLK_DTYPE_S8 ||
                                 c == DLK_DTYPE_U8);
  if (a != b) return false;
  if (a == DLK_DTYPE_F32) return c == DLK_DTYPE_F32;
  return (a == DLK_DTYPE_F16 || a == DLK_DTYPE_BF16) && (c == a || c == DLK_DTYPE_F32);
}

// The descriptors of one cuBLASLt call and the algorithm its heuristic chose.
struct LtGemm::Cached {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  std::string implementation;
  ~Cached() {
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (desc) cublasLtMatmulDescDestroy(desc);
  }
};

LtGemm::LtGemm(cudaStream_t stream, bool allow_tf32)
    : stream_(stream), allow_tf32_(allow_tf32), workspace_(stream), staging_(stream),
      multipliers_(stream) {
  check_cublas(cublasLtCreate(&handle_), "cublasLtCreate");
}

LtGemm::~LtGemm() {
  cache_.clear();
  if (handle_) cublasLtDestroy(handle_);
}

const LtGemm::Cached &LtGemm::cached(const GemmKey &key) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  auto found = cache_.find(key);
  if (found != cache_.end()) return *found->second;

  auto entry = std::make_unique<Cached>();
  const bool integer = key.compute == GemmCompute::s32;
  check_cublas(cublasLtMatmulDescCreate(&entry->desc, lt_compute(key.compute),
                                        integer ? CUDA_R_32I : CUDA_R_32F),
               "cublasLtMatmulDescCreate");
  set_attribute(entry->desc, CUBLASLT_MATMUL_DESC_TRANSA, key.a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N);
  set_attribute(entry->desc, CUBLASLT_MATMUL_DESC_TRANSB, key.b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N);
  struct Layout {
    cublasLtMatrixLayout_t *out;
    const LtMatrix &m;
  };
  for (const Layout &l : {Layout{&entry->a, key.a}, Layout{&entry->b, key.b}, Layout{&entry->c, key.c}}) {
    check_cublas(cublasLtMatrixLayoutCreate(l.out, lt_type(l.m.dtype), static_cast<uint64_t>(l.m.rows),
                                            static_cast<uint64_t>(l.m.cols), l.m.ld),
                 "cublasLtMatrixLayoutCreate");
    set_attribute(*l.out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, static_cast<int32_t>(key.batch));
    set_attribute(*l.out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, l.m.batch_stride);
  }

  cublasLtMatmulPreference_t pref = nullptr;
  check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  std::unique_ptr<void, void (*)(void *)> pref_guard(
      pref, [](void *p) { cublasLtMatmulPreferenceDestroy(static_cast<cublasLtMatmulPreference_t>(p)); });
  set_attribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t{kWorkspaceBytes});
  set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, key.align_a);
  set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, key.align_b);
  set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, key.align_c);
  set_attribute(pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, key.align_c);
  // A split-K product whose parts are added in a 16-bit output type rounds every part, outside the
  // numerics contract (48x the bound on an H100, bf16, k = 12): 16-bit products reduce in f32 only.
  if (key.d_type == DLK_DTYPE_F16 || key.d_type == DLK_DTYPE_BF16)
    set_attribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, uint32_t{CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE});
  cublasLtMatmulHeuristicResult_t result{};
  int returned = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      handle_, entry->desc, entry->a, entry->b, entry->c, entry->c, pref, 1, &result, &returned);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && returned == 0))
    throw core::Error(DLK_STATUS_UNSUPPORTED,
                      "dlk_gemm: cuda: cuBLASLt has no algorithm for this layout and type combination");
  check_cublas(status, "cublasLtMatmulAlgoGetHeuristic");
  entry->algo = result.algo;
  entry->implementation = std::string("cublaslt:gemm_") + compute_name(key.compute);
  return *cache_.emplace(key, std::move(entry)).first->second;
}

void LtGemm::matmul(const Cached &entry, const void *alpha, const void *a, const void *b,
                    const void *beta, void *c) {
  void *workspace = workspace_.get(kWorkspaceBytes);
  check_cublas(cublasLtMatmul(handle_, entry.desc, alpha, a, entry.a, b, entry.b, beta, c, entry.c, c,
                              entry.c, &entry.algo, workspace, kWorkspaceBytes, stream_),
               "cublasLtMatmul");
}

core::OpResult LtGemm::run(const core::GemmArgs &g) {
  const GemmPlan plan = plan_gemm(g, allow_tf32_);
  if (!plan.unsupported.empty()) throw core::Error(DLK_STATUS_UNSUPPORTED, "dlk_gemm: cuda: " + plan.unsupported);
  if (g.m == 0 || g.n == 0 || g.batch == 0) return {"cuda:gemm_empty", 0};
  if (plan.route == GemmRoute::int8_staged) return run_staged_int8(plan, g);
  if (g.k == 0) {
    if (g.is_integer()) throw core::Error(DLK_STATUS_INTERNAL_ERROR, "dlk_gemm: cuda: k = 0 must be staged");
    check_cuda(launch_scale_c(g.c_type, g.c, g.m, g.n, g.batch, g.rs_c, g.cs_c, g.batch_stride_c, g.alpha,
                              g.beta, stream_),
               "scale_c kernel launch");
    return {"cuda:gemm_k0_scale", 0};
  }
  const void *x = plan.swapped ? g.b.ptr : g.a.ptr;
  const void *y = plan.swapped ? g.a.ptr : g.b.ptr;
  const Cached &entry = cached(gemm_key(plan, g, x, y, g.c));
  if (plan.compute == GemmCompute::s32) {
    // Validation allows only alpha 1 and beta 0 or 1 for s32 C.
    const int32_t alpha = 1, beta = g.beta != 0.0f ? 1 : 0;
    matmul(entry, &alpha, x, y, &beta, g.c);
  } else {
    matmul(entry, &g.alpha, x, y, &g.beta, g.c);
  }
  return {entry.implementation, 0};
}

core::OpResult LtGemm::run_staged_int8(const GemmPlan &p, const core::GemmArgs &g) {
  // Staging memory: packed A, packed B, s32 product, column sums of B; each part
  // 256-byte aligned.
  auto round_up = [](size_t bytes) { return (bytes + 255) / 256 * 256; };
  const auto batch = static_cast<size_t>(p.batch);
  const size_t a_bytes = round_up(batch * p.k_padded * p.m_padded);
  const size_t b_bytes = round_up(batch * p.k_padded * p.n);
  const size_t product_bytes = round_up(batch * p.m_padded * p.n * sizeof(int32_t));
  const size_t sums_bytes = round_up(batch * p.n * sizeof(int32_t));
  auto *base = static_cast<char *>(staging_.get(a_bytes + b_bytes + product_bytes + sums_bytes));
  auto *packed_a = reinterpret_cast<int8_t *>(base);
  auto *packed_b = reinterpret_cast<int8_t *>(base + a_bytes);
  auto *product = reinterpret_cast<int32_t *>(base + a_bytes + b_bytes);
  auto *sums = reinterpret_cast<int32_t *>(base + a_bytes + b_bytes + product_bytes);

  std::string implementation = "cuda:gemm_int8_staged";
  if (p.k > 0) {
    const bool a_u8 = g.a.dtype == DLK_DTYPE_U8;
    check_cuda(launch_pack_int8({g.a.ptr, a_u8, g.m, p.m_padded, p.k, p.k_padded, p.batch, g.a.rs, g.a.cs,
                                 g.a.batch_stride, packed_a},
                                stream_),
               "pack_int8 (A) kernel launch");
    check_cuda(launch_pack_int8({g.b.ptr, false, p.n, p.n, p.k, p.k_padded, p.batch, g.b.cs, g.b.rs,
                                 g.b.batch_stride, packed_b},
                                stream_),
               "pack_int8 (B) kernel launch");
    if (p.a_offset != 0)
      check_cuda(launch_column_sums(packed_b, p.n, p.k_padded, p.batch, sums, stream_),
                 "column_sums kernel launch");
    const Cached &entry = cached(gemm_key(p, g, packed_a, packed_b, product));
    const int32_t alpha = 1, beta = 0;
    matmul(entry, &alpha, packed_a, packed_b, &beta, product);
    implementation = entry.implementation + "+dlk_int8_epilogue";
  }
  const float *multipliers = nullptr;
  if (g.column_multipliers) {
    const size_t bytes = static_cast<size_t>(g.n) * sizeof(float);
    auto *device = static_cast<float *>(multipliers_.get(bytes));
    // From pageable memory the copy has read the source when the call returns.
    check_cuda(cudaMemcpyAsync(device, g.column_multipliers, bytes, cudaMemcpyHostToDevice, stream_),
               "cudaMemcpyAsync (column multipliers)");
    multipliers = device;
  }
  Int8EpilogueArgs e{};
  e.kind = p.epilogue;
  e.product = p.k > 0 ? product : nullptr;
  e.product_rows = p.m_padded;
  e.sums = sums;
  e.a_offset = p.k > 0 ? p.a_offset : 0;
  e.m = g.m, e.n = g.n, e.batch = p.batch;
  e.c = g.c;
  e.rs_c = g.rs_c, e.cs_c = g.cs_c, e.batch_stride_c = g.batch_stride_c;
  e.multipliers = multipliers;
  e.multiplier = g.multiplier;
  e.beta = g.beta;
  e.c_zero_point = g.c_zero_point;
  check_cuda(launch_int8_epilogue(e, stream_), "int8_epilogue kernel launch");
  return {implementation, 0};
}

}  // namespace dlk::cuda
