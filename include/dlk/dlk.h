/*
 * dlk: portable compute layer for deep-learning training. C ABI (docs/abi.md).
 *
 * Conventions, for every call below:
 * - Every call returns a dlk_status. On failure dlk_last_error() names the call,
 *   the argument and the rule broken, and outputs are left untouched. No call
 *   aborts, asserts or lets a C++ exception escape.
 * - Tensor pointers are device pointers of the context's backend (dlk_malloc);
 *   the CPU and fpga_sim backends also accept any host pointer. Scale arrays are
 *   always host memory.
 * - No output may share an element with an input the call reads (scales
 *   included) or with another output. The rule is per element: a C placed in the
 *   gaps between the rows of a strided A is allowed. Where the spans of strided
 *   tensors cross and comparing them run by run would take more than 2^22 steps,
 *   the call refuses them (the conservative side) rather than take the time.
 * - Calls on one context are ordered. A context may be used by one thread at a
 *   time; different contexts may be used concurrently. An op that starts while
 *   another thread's op runs on the same context is refused
 *   (DLK_STATUS_INVALID_ARGUMENT naming 'context'), never run beside it.
 * - A call that cannot get the memory it needs returns DLK_STATUS_OUT_OF_MEMORY.
 * - Struct layouts and enum values are part of the ABI. While DLK_ABI_VERSION
 *   (the SONAME of libdlk) is 0, before release 1.0, the ABI is unstable: they may
 *   change between commits without raising it. From 1 on, changing them raises it
 *   (docs/abi.md; tests/abi checks each layout against a committed dump).
 * - Structs that may grow carry their size, as the caller was compiled: the
 *   options and descriptors in their first member, struct_size, which their
 *   *_init functions set; dlk_context_info and dlk_op_record in the calls that
 *   fill them. Those functions are inline here so that the size is the caller's
 *   sizeof. The library reads and writes no byte beyond that size. A size below
 *   any this struct ever had is an invalid argument; a larger one (a program
 *   built against a later dlk.h) is accepted as long as the fields this library
 *   does not know are 0, else the call is unsupported. Later versions append
 *   fields only at the end, so a program keeps working with a later libdlk.
 */
#ifndef DLK_DLK_H
#define DLK_DLK_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define DLK_API __attribute__((visibility("default")))
#else
#define DLK_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DLK_VERSION_MAJOR 0
#define DLK_VERSION_MINOR 1
#define DLK_VERSION_PATCH 0
#define DLK_ABI_VERSION 0

/* ---------------------------------------------------------------- status */

typedef enum dlk_status {
  DLK_STATUS_SUCCESS = 0,
  DLK_STATUS_INVALID_ARGUMENT = 1,    /* an argument breaks a rule of the call */
  DLK_STATUS_UNSUPPORTED = 2,         /* valid, but this backend does not implement it */
  DLK_STATUS_OUT_OF_MEMORY = 3,
  DLK_STATUS_BACKEND_UNAVAILABLE = 4, /* the backend asked for cannot run here */
  DLK_STATUS_RUNTIME_ERROR = 5,       /* the device or a vendor library failed */
  DLK_STATUS_INTERNAL_ERROR = 6       /* a bug in dlk: please report it */
} dlk_status;

/* "success", "invalid_argument", ...; "unknown" for a value outside the enum. */
DLK_API const char *dlk_status_name(dlk_status status);

/* Message of the most recent call on this thread: empty after a success. The
 * pointer stays valid until the next dlk call on this thread. */
DLK_API const char *dlk_last_error(void);

typedef struct dlk_version {
  int major, minor, patch;
  int abi;
} dlk_version;

DLK_API dlk_version dlk_get_version(void);

/* ---------------------------------------------------------------- types */

typedef enum dlk_dtype {
  DLK_DTYPE_F32 = 1,
  DLK_DTYPE_F16 = 2,
  DLK_DTYPE_BF16 = 3,
  DLK_DTYPE_S8 = 4,
  DLK_DTYPE_U8 = 5,
  DLK_DTYPE_S32 = 6
} dlk_dtype;

/* "f32", "f16", "bf16", "s8", "u8", "s32"; "unknown" otherwise. */
DLK_API const char *dlk_dtype_name(dlk_dtype dtype);
/* Bytes per element; 0 for a value outside the enum. */
DLK_API size_t dlk_dtype_size(dlk_dtype dtype);

typedef enum dlk_op {
  DLK_OP_GEMM = 1,
  DLK_OP_CONV2D_FORWARD = 2,
  DLK_OP_CONV2D_BACKWARD_DATA = 3,
  DLK_OP_CONV2D_BACKWARD_WEIGHTS = 4,
  DLK_OP_POOL2D_FORWARD = 5,
  DLK_OP_POOL2D_BACKWARD = 6
} dlk_op;

DLK_API const char *dlk_op_name(dlk_op op);

/* ---------------------------------------------------------------- context */

typedef struct dlk_context *dlk_context_t;

/* Settings given in code win over the environment (DLK_BACKEND, DLK_CPU_ISA,
 * DLK_NUM_THREADS, DLK_VERBOSE, DLK_FPGA_SIM_CONFIG). Fill with
 * dlk_context_options_init, then change what you need. */
typedef struct dlk_context_options {
  size_t struct_size;          /* sizeof(dlk_context_options), set by dlk_context_options_init */
  const char *backend;         /* "auto", "cpu", "cuda", "fpga_sim"; NULL: DLK_BACKEND, else "auto" */
  const char *cpu_isa;         /* "avx512", "avx2", "scalar"; NULL: DLK_CPU_ISA, else the best the CPU has */
  int num_threads;             /* 1 to 4096; 0: DLK_NUM_THREADS, else the cores the process may run on */
  int verbose;                 /* 0, 1, 2; -1: DLK_VERBOSE, else 0 */
  const char *fpga_sim_config; /* JSON path; NULL: DLK_FPGA_SIM_CONFIG, else the built-in array */
  int device;                  /* GPU ordinal for the cuda backend */
  void *stream;                /* cuda: a cudaStream_t to adopt; NULL: the context creates its own */
  int allow_tf32;              /* cuda: f32 GEMM and conv on TF32 tensor cores (10-bit mantissa
                                  products, outside the f32 error bound): 1 yes, 0 no;
                                  -1: DLK_CUDA_TF32, else 0 */
} dlk_context_options;

DLK_API void dlk_context_options_init_sized(dlk_context_options *options, size_t struct_size);
static inline void dlk_context_options_init(dlk_context_options *options) {
  dlk_context_options_init_sized(options, sizeof *options);
}

/* options may be NULL: everything from the environment. */
DLK_API dlk_status dlk_context_create(dlk_context_t *context, const dlk_context_options *options);
/* Destroying NULL is a no-op that succeeds. */
DLK_API dlk_status dlk_context_destroy(dlk_context_t context);

/* What the context runs on, and its theoretical ceilings for a roofline.
 * A ceiling of 0 means the backend cannot tell; dlk-perf measures them. */
typedef struct dlk_context_info {
  char backend[16];          /* "cpu", "cuda", "fpga_sim" */
  char device[128];          /* CPU model, GPU name, array description */
  char isa[32];              /* "avx512", "avx2", "scalar", "sm_90", ... */
  int num_threads;
  double peak_f32_flops;     /* per second */
  double peak_f16_flops;
  double peak_bf16_flops;
  double peak_int8_ops;
  double memory_bandwidth;   /* bytes per second */
} dlk_context_info;

DLK_API dlk_status dlk_context_get_info_sized(dlk_context_t context, dlk_context_info *info,
                                             size_t info_size);
static inline dlk_status dlk_context_get_info(dlk_context_t context, dlk_context_info *info) {
  return dlk_context_get_info_sized(context, info, sizeof *info);
}

/* Whether the backend implements op for these types: GEMM (a, b, c); conv2d
 * (src, weights, dst); pool2d (src, src, dst). *supported is 1 or 0. */
DLK_API dlk_status dlk_context_supports(dlk_context_t context, dlk_op op, dlk_dtype a_type,
                                        dlk_dtype b_type, dlk_dtype c_type, int *supported);

/* What the last op on this context did: the implementation that ran, its wall
 * time, and the work by the roofline's counting (FLOPs of the math, bytes of the
 * tensors read and written once). sim_cycles is the simulated time of fpga_sim,
 * 0 elsewhere. */
typedef struct dlk_op_record {
  dlk_op op;
  char implementation[48];
  double seconds;
  double flops;
  double bytes;
  double sim_cycles;
} dlk_op_record;

DLK_API dlk_status dlk_context_last_op_sized(dlk_context_t context, dlk_op_record *record,
                                            size_t record_size);
static inline dlk_status dlk_context_last_op(dlk_context_t context, dlk_op_record *record) {
  return dlk_context_last_op_sized(context, record, sizeof *record);
}

/* ------------------------------------------ fpga_sim: the simulated accelerator's record */

/* What the last op would take on the accelerator that fpga_sim simulates (see
 * docs/fpga_sim.md for the timing model). The struct grows at its end: set struct_size to
 * sizeof(dlk_sim_record) before the call; the library fills the fields it knows
 * and keeps struct_size as given. Cycles are of the array's clock. */
typedef struct dlk_sim_record {
  size_t struct_size;
  double cycles;               /* everything: folds, DRAM stalls, exposed transfers, epilogue */
  double compute_cycles;       /* the folds alone with DRAM unlimited (SCALE-Sim's compute cycles) */
  double stall_cycles;         /* cycles - compute_cycles */
  double seconds;              /* cycles / clock */
  double macs;                 /* useful multiply-accumulates */
  double mac_utilization;      /* macs / (rows * cols * cycles), 0 to 1 */
  double dram_bytes_read;
  double dram_bytes_written;
  double buffer_bytes_read;    /* on-chip buffer traffic into the array or vector unit */
  double buffer_bytes_written; /* ... and out of it (partial sums, results) */
  int64_t folds;               /* array-sized pieces the op was cut into */
  int64_t overflows;           /* outputs whose exact integer sum wrapped in the s32 accumulator */
  int dram_bound;              /* 1: DRAM transfers take longer than compute; 0: compute bound */
} dlk_sim_record;

#define DLK_SIM_RECORD_SIZE_V1 112 /* sizeof(dlk_sim_record) of this first version, on LP64 */

/* invalid_argument when the context is not fpga_sim, has run no op, or
 * struct_size is smaller than DLK_SIM_RECORD_SIZE_V1. */
DLK_API dlk_status dlk_context_last_sim(dlk_context_t context, dlk_sim_record *record);

/* ------------------------------------------ end of fpga_sim block */

/* ---------------------------------------------------------------- memory */

typedef enum dlk_copy_kind {
  DLK_COPY_HOST_TO_DEVICE = 1,
  DLK_COPY_DEVICE_TO_HOST = 2,
  DLK_COPY_DEVICE_TO_DEVICE = 3
} dlk_copy_kind;

/* 64-byte aligned. bytes == 0 gives *ptr == NULL. */
DLK_API dlk_status dlk_malloc(dlk_context_t context, size_t bytes, void **ptr);
/* ptr must come from dlk_malloc on this context; NULL is a no-op. */
DLK_API dlk_status dlk_free(dlk_context_t context, void *ptr);
DLK_API dlk_status dlk_memcpy(dlk_context_t context, void *dst, const void *src, size_t bytes,
                              dlk_copy_kind kind);
/* Waits until every call issued on the context has finished. */
DLK_API dlk_status dlk_synchronize(dlk_context_t context);

/* ---------------------------------------------------------------- GEMM */

typedef enum dlk_layout { DLK_ROW_MAJOR = 0, DLK_COL_MAJOR = 1 } dlk_layout;
typedef enum dlk_transpose { DLK_NO_TRANSPOSE = 0, DLK_TRANSPOSE = 1 } dlk_transpose;

typedef enum dlk_scale_mode {
  DLK_SCALE_NONE = 0,
  DLK_SCALE_PER_TENSOR = 1, /* scales[0] */
  DLK_SCALE_PER_CHANNEL = 2 /* GEMM: scales[j] per column of C; conv: per output channel */
} dlk_scale_mode;

/*
 * C = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n, C m x n, for
 * batch_count matrices stride_* elements apart (a stride of 0 reuses one A or B).
 * Types (a, b, c):
 *   f32 f32 f32
 *   f16 f16 f16|f32,  bf16 bf16 bf16|f32   (f32 accumulation, round to nearest even)
 *   u8|s8 s8 s32|f32|s8|u8                  (s32 accumulation, wrapping modulo 2^32)
 * Integer GEMM, exactly and on every backend:
 *   acc[i][j] = sum_k (A[i][k] - a_zero_point) * B[k][j]
 *   s32 out:   C = acc, or C + acc when beta == 1 (alpha must be 1, beta 0 or 1, no scales)
 *   f32 out:   C = fmaf(beta, C, (float)acc * (alpha * scale_j))    (beta == 0: no C read)
 *   s8/u8 out: v = fmaf(beta, (float)(C - c_zero_point), (float)acc * (alpha * scale_j));
 *              C = saturate(rint(v) + c_zero_point)    (round half to even)
 * scale_j is 1 (DLK_SCALE_NONE), scales[0] or scales[j]; alpha * scale_j is one f32 product.
 * When k == 0, C = beta * C as in BLAS; when beta == 0, C is never read (NaN in C
 * does not propagate).
 */
typedef struct dlk_gemm_desc {
  size_t struct_size; /* sizeof(dlk_gemm_desc), set by dlk_gemm_desc_init */
  dlk_layout layout;
  dlk_transpose trans_a, trans_b;
  int64_t m, n, k;
  dlk_dtype a_type, b_type, c_type;
  int64_t lda, ldb, ldc;
  int64_t batch_count;
  int64_t stride_a, stride_b, stride_c;
  float alpha, beta;
  int32_t a_zero_point;
  int32_t c_zero_point;
  dlk_scale_mode scale_mode;
  const float *scales;
} dlk_gemm_desc;

/* Row-major, no transposes, tight leading dimensions, one matrix, alpha 1, beta 0. */
DLK_API void dlk_gemm_desc_init_sized(dlk_gemm_desc *desc, size_t struct_size, dlk_dtype a_type,
                                      dlk_dtype b_type, dlk_dtype c_type, int64_t m, int64_t n,
                                      int64_t k);
static inline void dlk_gemm_desc_init(dlk_gemm_desc *desc, dlk_dtype a_type, dlk_dtype b_type,
                                      dlk_dtype c_type, int64_t m, int64_t n, int64_t k) {
  dlk_gemm_desc_init_sized(desc, sizeof *desc, a_type, b_type, c_type, m, n, k);
}

DLK_API dlk_status dlk_gemm(dlk_context_t context, const dlk_gemm_desc *desc, const void *a,
                            const void *b, void *c);

/* ---------------------------------------------------------------- conv2d */

typedef enum dlk_format { DLK_FORMAT_NCHW = 0, DLK_FORMAT_NHWC = 1 } dlk_format;

/*
 * 2-D convolution (cross-correlation, as in every DL framework).
 *   src  n x c x h x w (NCHW) or n x h x w x c (NHWC)
 *   dst  n x k x oh x ow or n x oh x ow x k, oh = (h + 2 pad_h - dilation_h (kh - 1) - 1) / stride_h + 1
 *   weights k x (c/groups) x kh x kw (NCHW) or k x kh x kw x (c/groups) (NHWC)
 *   bias k values of f32; NULL for none. relu applies max(0, x) after the bias (forward only).
 * Types (src, weights, dst): f32 f32 f32; f16 f16 f16; bf16 bf16 bf16 (f32 accumulation);
 * forward also u8|s8 s8 s32|f32|s8|u8 with the GEMM integer rules, per output channel
 * scales, and v = (float)acc * scale_k + bias_k before relu and requantization;
 * padding is src_zero_point, so it adds nothing. Backward passes take float types only.
 */
typedef struct dlk_conv2d_desc {
  size_t struct_size; /* sizeof(dlk_conv2d_desc), set by dlk_conv2d_desc_init */
  dlk_format format;
  int64_t n, c, h, w;
  int64_t k;
  int64_t kh, kw;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  int64_t dilation_h, dilation_w; /* 1 = dense */
  int64_t groups;
  dlk_dtype src_type, weights_type, dst_type;
  int relu;
  int32_t src_zero_point;
  int32_t dst_zero_point;
  dlk_scale_mode scale_mode;
  const float *scales;
} dlk_conv2d_desc;

/* NCHW, stride 1, no padding, dilation 1, one group, no relu, all types dtype. */
DLK_API void dlk_conv2d_desc_init_sized(dlk_conv2d_desc *desc, size_t struct_size,
                                        dlk_dtype dtype, int64_t n, int64_t c, int64_t h,
                                        int64_t w, int64_t k, int64_t kh, int64_t kw);
static inline void dlk_conv2d_desc_init(dlk_conv2d_desc *desc, dlk_dtype dtype, int64_t n,
                                        int64_t c, int64_t h, int64_t w, int64_t k, int64_t kh,
                                        int64_t kw) {
  dlk_conv2d_desc_init_sized(desc, sizeof *desc, dtype, n, c, h, w, k, kh, kw);
}
/* Validates desc and gives the output height and width. */
DLK_API dlk_status dlk_conv2d_output_shape(const dlk_conv2d_desc *desc, int64_t *oh, int64_t *ow);

DLK_API dlk_status dlk_conv2d_forward(dlk_context_t context, const dlk_conv2d_desc *desc,
                                      const void *src, const void *weights, const float *bias,
                                      void *dst);
/* diff_src = conv2d^T(diff_dst, weights); overwrites diff_src. */
DLK_API dlk_status dlk_conv2d_backward_data(dlk_context_t context, const dlk_conv2d_desc *desc,
                                            const void *diff_dst, const void *weights,
                                            void *diff_src);
/* diff_weights (and diff_bias, k f32 values, when not NULL) from src and diff_dst; overwrites. */
DLK_API dlk_status dlk_conv2d_backward_weights(dlk_context_t context, const dlk_conv2d_desc *desc,
                                               const void *src, const void *diff_dst,
                                               void *diff_weights, float *diff_bias);

/*
 * Packed weights: the weights of one convolution copied into the context and,
 * where the backend has a layout of its own for them, packed into it once for
 * the passes asked for, so that dlk_conv2d_forward_packed and
 * dlk_conv2d_backward_data_packed skip the packing dlk_conv2d_forward and
 * dlk_conv2d_backward_data do on every call (oneDNN's weights reorder, done
 * once before the loop). Inference packs once for the forward; training packs
 * once per step, after the update, for both passes (one handle).
 *   desc      the convolution the weights are for; a call with them must have
 *             the same desc but for n (the batch), scales (read on each call)
 *             and, for backward data, relu (the forward's)
 *   weights   as dlk_conv2d_forward takes them, on the context's device; the handle
 *             keeps its own copy, so they may change or be freed afterwards
 *   passes    DLK_CONV2D_PASS_FORWARD, DLK_CONV2D_PASS_BACKWARD_DATA (float
 *             types) or both, ORed; dlk_conv2d_weights_create packs for the
 *             forward. A call for a pass the handle was not packed for fails.
 * The handle belongs to the context: destroy it on the same context (the context's
 * destruction frees the handles left). A backend without a layout of its own, or a
 * shape its fastest kernel does not take, keeps the weights as they are, and the
 * pass runs as the plain call does; the results are the same either way.
 */
typedef struct dlk_conv2d_weights *dlk_conv2d_weights_t;
typedef enum dlk_conv2d_pass {
  DLK_CONV2D_PASS_FORWARD = 1,
  DLK_CONV2D_PASS_BACKWARD_DATA = 2
} dlk_conv2d_pass;
DLK_API dlk_status dlk_conv2d_weights_create(dlk_context_t context, const dlk_conv2d_desc *desc,
                                             const void *weights, dlk_conv2d_weights_t *packed);
DLK_API dlk_status dlk_conv2d_weights_create_for(dlk_context_t context,
                                                 const dlk_conv2d_desc *desc, const void *weights,
                                                 unsigned passes, dlk_conv2d_weights_t *packed);
/* Destroying NULL is a no-op that succeeds. */
DLK_API dlk_status dlk_conv2d_weights_destroy(dlk_context_t context,
                                              dlk_conv2d_weights_t packed);
/* dlk_conv2d_forward with the packed weights in place of weights. */
DLK_API dlk_status dlk_conv2d_forward_packed(dlk_context_t context, const dlk_conv2d_desc *desc,
                                             const void *src, dlk_conv2d_weights_t packed,
                                             const float *bias, void *dst);
/* dlk_conv2d_backward_data with the packed weights in place of weights. */
DLK_API dlk_status dlk_conv2d_backward_data_packed(dlk_context_t context,
                                                   const dlk_conv2d_desc *desc,
                                                   const void *diff_dst,
                                                   dlk_conv2d_weights_t packed, void *diff_src);

/* ---------------------------------------------------------------- pool2d */

typedef enum dlk_pool_kind {
  DLK_POOL_MAX = 0,
  DLK_POOL_AVG_INCLUDE_PADDING = 1, /* divide by kh * kw */
  DLK_POOL_AVG_EXCLUDE_PADDING = 2  /* divide by the taps inside the image */
} dlk_pool_kind;

/*
 * src n x c x h x w (or NHWC), dst n x c x oh x ow, oh = (h + 2 pad_h - kh) / stride_h + 1;
 * pad_h <= kh / 2 and pad_w <= kw / 2, so every window holds an image element.
 * Types: f32, f16, bf16 (f32 arithmetic); forward also s8, u8 (average rounds half to even).
 * argmax (max pooling) has one int32 per dst element: y * w + x of the maximum within
 * its (n, c) plane, the first one in row-major window order on ties. NaN propagates as
 * in PyTorch: a window holding a NaN has a NaN maximum, and argmax is its first NaN.
 */
typedef struct dlk_pool2d_desc {
  size_t struct_size; /* sizeof(dlk_pool2d_desc), set by dlk_pool2d_desc_init */
  dlk_format format;
  dlk_pool_kind kind;
  int64_t n, c, h, w;
  int64_t kh, kw;
  int64_t stride_h, stride_w;
  int64_t pad_h, pad_w;
  dlk_dtype dtype;
} dlk_pool2d_desc;

/* NCHW, stride = kernel, no padding. */
DLK_API void dlk_pool2d_desc_init_sized(dlk_pool2d_desc *desc, size_t struct_size,
                                        dlk_pool_kind kind, dlk_dtype dtype, int64_t n, int64_t c,
                                        int64_t h, int64_t w, int64_t kh, int64_t kw);
static inline void dlk_pool2d_desc_init(dlk_pool2d_desc *desc, dlk_pool_kind kind,
                                        dlk_dtype dtype, int64_t n, int64_t c, int64_t h,
                                        int64_t w, int64_t kh, int64_t kw) {
  dlk_pool2d_desc_init_sized(desc, sizeof *desc, kind, dtype, n, c, h, w, kh, kw);
}
DLK_API dlk_status dlk_pool2d_output_shape(const dlk_pool2d_desc *desc, int64_t *oh, int64_t *ow);

/* argmax: max pooling may pass NULL when no backward follows; average pooling must. */
DLK_API dlk_status dlk_pool2d_forward(dlk_context_t context, const dlk_pool2d_desc *desc,
                                      const void *src, void *dst, int32_t *argmax);
/* Overwrites diff_src. Max pooling needs the argmax of the forward pass. */
DLK_API dlk_status dlk_pool2d_backward(dlk_context_t context, const dlk_pool2d_desc *desc,
                                       const void *diff_dst, const int32_t *argmax,
                                       void *diff_src);

#ifdef __cplusplus
}
#endif

#endif /* DLK_DLK_H */
