/*
 * libdlk_compress: gradient compressors with a self-describing, validated wire
 * format. C ABI (docs/abi.md); needs nothing but the C++ runtime (it does not link libdlk).
 *
 * A codec encodes a float32 buffer into a message (header + payload, format in
 * docs/wire-format.md) and decodes it back, or decodes and adds it into a buffer
 * (what an all-reduce needs).
 *
 * | algorithm | payload                                                  | error feedback |
 * |-----------|----------------------------------------------------------|----------------|
 * | onebit    | per block: root mean square of the positives and of the  | yes            |
 * |           | negatives; one sign bit per element (Seide et al. 2014)  |                |
 * | topk      | the k largest magnitudes as (index, value) pairs         | yes            |
 * | int8/int4 | per block: one scale (max |x| / 127 or / 7); one code per | optional       |
 * |           | element, round to nearest even or stochastic             |                |
 * | fp16/bf16 | a cast, round to nearest even                            | optional       |
 *
 * Error feedback: when `residual` is not NULL, encode compresses v = input +
 * residual and leaves residual = v - decode(encode(v)) in the same pass.
 *
 * Conventions, for every call below:
 * - Every call returns a dlk_codec_status. On failure dlk_compress_last_error()
 *   names the call and what was wrong, and no output (message, residual, decoded
 *   buffer) has been written. No call aborts or lets a C++ exception escape.
 * - Float buffers must be 4-byte aligned; messages may lie at any address.
 *   Outputs must not overlap inputs (input and residual must not overlap either).
 * - Every decoder checks every header field and length against the buffer it is
 *   given before it reads the payload: a truncated, corrupt or hostile message is
 *   DLK_CODEC_CORRUPT_MESSAGE (or DLK_CODEC_UNSUPPORTED for a newer format).
 * - Calls are thread-safe; the last-error message is per thread.
 * - Struct layouts and enum values are part of the ABI. While DLK_COMPRESS_ABI_VERSION
 *   (the SONAME of libdlk_compress) is 0, before release 1.0, the ABI is unstable: they may
 *   change between commits without raising it. From 1 on, changing them raises it
 *   (docs/abi.md; tests/abi checks each layout against a committed dump).
 */
#ifndef DLK_DLK_COMPRESS_H
#define DLK_DLK_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__)
#define DLK_COMPRESS_API __attribute__((visibility("default")))
#else
#define DLK_COMPRESS_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DLK_COMPRESS_ABI_VERSION 0
/* The wire-format version this library writes, and the newest it reads. */
#define DLK_CODEC_FORMAT_VERSION 1
#define DLK_CODEC_HEADER_SIZE 32
/* Largest element count of a message (2^48); topk also needs count <= 2^32. */
#define DLK_CODEC_MAX_ELEMENTS (UINT64_C(1) << 48)
/* Block sizes of onebit, int8, int4: a multiple of 16, from 16 to 2^24. */
#define DLK_CODEC_BLOCK_ALIGNMENT 16
#define DLK_CODEC_MAX_BLOCK_SIZE (UINT32_C(1) << 24)

typedef enum dlk_codec_status {
  DLK_CODEC_SUCCESS = 0,
  DLK_CODEC_INVALID_ARGUMENT = 1, /* a parameter or buffer breaks a rule of the call */
  DLK_CODEC_CORRUPT_MESSAGE = 2,  /* the message fails validation */
  DLK_CODEC_UNSUPPORTED = 3,      /* a newer format version, or an ISA this CPU lacks */
  DLK_CODEC_OUT_OF_MEMORY = 4,
  DLK_CODEC_INTERNAL_ERROR = 5 /* a bug in dlk: please report it */
} dlk_codec_status;

typedef enum dlk_codec_algorithm {
  DLK_CODEC_ONEBIT = 1,
  DLK_CODEC_TOPK = 2,
  DLK_CODEC_INT8 = 3,
  DLK_CODEC_INT4 = 4,
  DLK_CODEC_FP16 = 5,
  DLK_CODEC_BF16 = 6
} dlk_codec_algorithm;

typedef enum dlk_codec_rounding {
  DLK_CODEC_ROUND_NEAREST_EVEN = 0,
  /* Round up with probability equal to the fraction, from a counter-based
   * generator keyed by (seed, step, rank) and the element index: the same
   * parameters give the same message on every ISA tier and every run. */
  DLK_CODEC_ROUND_STOCHASTIC = 1
} dlk_codec_rounding;

typedef enum dlk_codec_topk_selection {
  DLK_CODEC_TOPK_EXACT = 0, /* exactly k elements: the k largest |v| (ties: lower index first) */
  /* Threshold estimated on a sample (as Deep Gradient Compression does), then one
   * pass; returns at most k elements (the largest |v| when more pass the threshold). */
  DLK_CODEC_TOPK_SAMPLED = 1
} dlk_codec_topk_selection;

/* Fill with dlk_compress_params_init, then change what you need. */
typedef struct dlk_codec_params {
  dlk_codec_algorithm algorithm;
  uint32_t block_size;         /* onebit, int8, int4: elements per block (see above) */
  dlk_codec_rounding rounding; /* int8, int4 */
  uint64_t seed;               /* stochastic rounding: the stream is (seed, step, rank) */
  uint64_t step;
  uint32_t rank;
  dlk_codec_topk_selection topk_selection;
  uint64_t topk_count;  /* topk: k; 0 means round(topk_fraction * count), at least 1 */
  double topk_fraction; /* topk: in (0, 1], used when topk_count is 0 */
} dlk_codec_params;

/* What a message's header says (after validating the header). */
typedef struct dlk_codec_message_info {
  dlk_codec_algorithm algorithm;
  uint32_t format_version;
  uint64_t element_count;
  uint32_t block_size;   /* 0 for topk, fp16, bf16 */
  uint64_t payload_size; /* bytes after the header */
  uint64_t message_size; /* DLK_CODEC_HEADER_SIZE + payload_size */
} dlk_codec_message_info;

/* "success", "invalid_argument", ...; "unknown" for a value outside the enum. */
DLK_COMPRESS_API const char *dlk_compress_status_name(dlk_codec_status status);
/* "onebit", "topk", "int8", "int4", "fp16", "bf16"; "unknown" otherwise. */
DLK_COMPRESS_API const char *dlk_compress_algorithm_name(dlk_codec_algorithm algorithm);

/* Message of the most recent call on this thread: empty after a success. The
 * pointer stays valid until the next dlk_compress call on this thread. */
DLK_COMPRESS_API const char *dlk_compress_last_error(void);

/* Defaults: block_size 128 (onebit), 256 (int8), 128 (int4), 0 otherwise;
 * round to nearest even; seed, step, rank 0; topk exact with fraction 0.01. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_params_init(dlk_codec_params *params,
                                                           dlk_codec_algorithm algorithm);

/* The largest message encode can write for `count` elements with `params`
 * (exact for every algorithm but sampled topk, which may write less). */
DLK_COMPRESS_API dlk_codec_status dlk_compress_max_message_size(const dlk_codec_params *params,
                                                                uint64_t count, size_t *bytes);

/* Encode input[0, count) (plus residual when not NULL) into message, whose
 * capacity must be at least dlk_compress_max_message_size; *message_size gets the
 * bytes written. With a residual, residual = v - decode(message) afterwards. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_encode(const dlk_codec_params *params,
                                                      const float *input, float *residual,
                                                      uint64_t count, void *message,
                                                      size_t capacity, size_t *message_size);

/* Validate the header (not the payload) and describe the message. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_inspect(const void *message, size_t message_size,
                                                       dlk_codec_message_info *info);

/* output[0, count) = decode(message). message_size must be the message's exact
 * size, and count its element count. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_decode(const void *message, size_t message_size,
                                                      float *output, uint64_t count);

/* accumulator[i] += decode(message)[i], one float addition per element. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_decode_add(const void *message,
                                                          size_t message_size,
                                                          float *accumulator, uint64_t count);

/* The SIMD tier the codecs run: "avx512" (F, BW, DQ), "avx2" (with F16C) or
 * "scalar". Every tier gives bit-identical messages, residuals and outputs.
 * Default: the environment variable DLK_COMPRESS_ISA when set, else the best tier
 * this CPU has. dlk_compress_set_isa(NULL) returns to that default; naming a tier
 * the CPU lacks is DLK_CODEC_UNSUPPORTED, an unknown name DLK_CODEC_INVALID_ARGUMENT
 * (as is an unknown DLK_COMPRESS_ISA, reported by every call that runs a codec).
 * The setting is process-wide: meant for tests and benchmarks. */
DLK_COMPRESS_API dlk_codec_status dlk_compress_set_isa(const char *isa);
DLK_COMPRESS_API dlk_codec_status dlk_compress_get_isa(const char **isa);

#ifdef __cplusplus
}
#endif

#endif /* DLK_DLK_COMPRESS_H */
