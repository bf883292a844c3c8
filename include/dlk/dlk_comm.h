/*
 * libdlk_comm: all-reduce of float32 gradients over an MPI communicator, plain or
 * compressed, blocking or not, and a gradient synchronizer that fuses tensors
 * into buckets and all-reduces them while the backward pass goes on.
 * C ABI (docs/abi.md); links MPI and libdlk_compress.
 *
 * | algorithm | what it does                                                        |
 * |-----------|---------------------------------------------------------------------|
 * | native    | MPI_Allreduce; in iallreduce and the synchronizer MPI_Iallreduce,   |
 * |           | waited for without busy-polling (the baseline)                      |
 * | ring      | reduce-scatter + all-gather over a ring, chunks pipelined with      |
 * |           | non-blocking point-to-point so the reduction overlaps the transfer  |
 * | ps        | reduce to rank 0, broadcast back (parameter server; grows with P)   |
 * | onebit,   | two-phase compressed: each rank owns one chunk; compressed chunks   |
 * | int8,     | go all-to-all, the owner decodes and sums them, re-compresses the   |
 * | int4,     | sum with its server-side residual, and the result is all-gathered.  |
 * | fp16, bf16| Worker- and server-side residuals persist per buffer.               |
 * | topk      | all-gather of every rank's sparse (index, value) message, summed on |
 * |           | every rank; worker residual kept                                    |
 * | auto      | per buffer, from the measured link (alpha-beta fit) and codec cost  |
 *
 * Every rank ends with bitwise-identical results for every algorithm.
 *
 * Conventions, for every call below:
 * - Every call returns a dlk_comm_status; on failure dlk_comm_last_error() names
 *   the call and the argument or what failed. No call aborts or lets a C++
 *   exception escape; MPI errors come back as DLK_COMM_MPI_ERROR with MPI's own
 *   error string (dlk works on its own duplicate of the communicator, set to
 *   MPI_ERRORS_RETURN).
 * - Calls marked "collective" must be made by every rank of the communicator in
 *   the same order. Before any data moves, the ranks exchange a small header of
 *   the call's arguments (count, algorithm, parameters, bucket layout): ranks
 *   that disagree all get DLK_COMM_MISMATCH naming what differs, never a hang or
 *   a wrong sum.
 * - Threads: a communicator made while MPI runs at MPI_THREAD_MULTIPLE runs its
 *   collectives on one background thread of its own (iallreduce and the
 *   synchronizer then overlap the caller's work). At a lower thread level every
 *   collective runs in the calling thread, iallreduce completes before it
 *   returns, and nothing overlaps (dlk_comm_properties.background says which).
 *   One communicator, with its buffers and synchronizers, is used by one caller
 *   thread at a time.
 * - Non-finite gradients: a NaN or inf in any rank's input reaches the result as
 *   a non-finite value (never a finite one of the other sign), so that a loss
 *   scaler sees it and skips the step; the residuals of that buffer may then hold
 *   non-finite values: dlk_comm_buffer_reset_residuals clears them.
 * - Struct layouts and enum values are part of the ABI. While DLK_COMM_ABI_VERSION
 *   (the SONAME of libdlk_comm) is 0, before release 1.0, the ABI is unstable: they
 *   may change between commits without raising it. From 1 on, changing them raises
 *   it (docs/abi.md; tests/abi checks each layout against a committed dump).
 */
#ifndef DLK_DLK_COMM_H
#define DLK_DLK_COMM_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#if defined(__GNUC__)
#define DLK_COMM_API __attribute__((visibility("default")))
#else
#define DLK_COMM_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define DLK_COMM_ABI_VERSION 0
/* Default bucket size of a synchronizer (as PyTorch DDP's bucket_cap_mb). */
#define DLK_COMM_DEFAULT_BUCKET_BYTES (UINT64_C(25) << 20)

typedef enum dlk_comm_status {
  DLK_COMM_SUCCESS = 0,
  DLK_COMM_INVALID_ARGUMENT = 1, /* an argument breaks a rule of the call */
  DLK_COMM_MISMATCH = 2,         /* ranks disagree on a collective call; every rank gets it */
  DLK_COMM_MPI_ERROR = 3,        /* MPI failed; the message carries MPI's error string */
  DLK_COMM_CODEC_ERROR = 4,      /* libdlk_compress rejected a message from a peer */
  DLK_COMM_OUT_OF_MEMORY = 5,
  DLK_COMM_INTERNAL_ERROR = 6 /* a bug in dlk: please report it */
} dlk_comm_status;

typedef enum dlk_comm_algorithm {
  DLK_COMM_ALGO_DEFAULT = 0, /* the communicator's default: DLK_COMM_ALGO, else native */
  DLK_COMM_ALGO_AUTO = 1,
  DLK_COMM_ALGO_NATIVE = 2,
  DLK_COMM_ALGO_RING = 3,
  DLK_COMM_ALGO_PS = 4,
  DLK_COMM_ALGO_ONEBIT = 5,
  DLK_COMM_ALGO_TOPK = 6,
  DLK_COMM_ALGO_INT8 = 7,
  DLK_COMM_ALGO_INT4 = 8,
  DLK_COMM_ALGO_FP16 = 9,
  DLK_COMM_ALGO_BF16 = 10
} dlk_comm_algorithm;

typedef struct dlk_comm_s *dlk_comm;
typedef struct dlk_comm_buffer_s *dlk_comm_buffer;
typedef struct dlk_comm_request_s *dlk_comm_request;
typedef struct dlk_comm_sync_s *dlk_comm_sync;

/* How a buffer is all-reduced. Fill with dlk_comm_config_init, then change what
 * you need. */
typedef struct dlk_comm_config {
  dlk_comm_algorithm algorithm;
  int average;                 /* nonzero: divide the sum by the rank count */
  uint32_t block_size;         /* onebit, int8, int4: elements per block; 0: the codec's default */
  int stochastic_rounding;     /* int8, int4: nonzero rounds stochastically (keyed by seed, call, rank) */
  uint64_t seed;
  double topk_fraction;        /* topk: fraction of the elements each rank sends, in (0, 1] */
  int topk_exact;              /* topk: nonzero selects exactly the k largest (slower); default:
                                  a threshold estimated on a sample, as Deep Gradient Compression */
  uint64_t warmup_steps;       /* compressed algorithms: the first calls of a buffer run native */
  uint64_t min_compress_bytes; /* compressed algorithms: smaller buffers run native */
} dlk_comm_config;

/* What one all-reduce did. Times are this rank's, in seconds. */
typedef struct dlk_comm_report {
  dlk_comm_algorithm algorithm; /* what ran: auto resolved, native during warm-up */
  uint64_t logical_bytes;       /* the uncompressed gradient: 4 * count */
  uint64_t wire_bytes_sent;     /* payload this rank handed to MPI for other ranks */
  uint64_t wire_bytes_received; /* payload other ranks sent to this rank */
  double total_seconds;
  double encode_seconds;   /* compressing (worker and server side) */
  double decode_seconds;   /* decompressing and summing (ring: the reduction) */
  double network_seconds;  /* in MPI moving data (transfer) */
  double wait_seconds;     /* in the header exchange: waiting for the slowest rank to arrive */
} dlk_comm_report;

typedef struct dlk_comm_properties {
  int rank;
  int size;
  int thread_level;  /* MPI_Query_thread */
  int background;    /* nonzero: collectives run on dlk's background thread */
  dlk_comm_algorithm default_algorithm;
} dlk_comm_properties;

/* "success", "invalid_argument", ...; "unknown" for a value outside the enum. */
DLK_COMM_API const char *dlk_comm_status_name(dlk_comm_status status);
/* "default", "auto", "native", "ring", "ps", "onebit", "topk", "int8", ... */
DLK_COMM_API const char *dlk_comm_algorithm_name(dlk_comm_algorithm algorithm);
/* The inverse of dlk_comm_algorithm_name; an unknown name lists the valid ones. */
DLK_COMM_API dlk_comm_status dlk_comm_algorithm_from_name(const char *name,
                                                          dlk_comm_algorithm *algorithm);

/* Message of the most recent call on this thread: empty after a success. */
DLK_COMM_API const char *dlk_comm_last_error(void);

/* Collective over mpi_comm (MPI must be initialized): dlk works on a duplicate.
 * The default algorithm comes from DLK_COMM_ALGO (an unknown value is an error
 * listing the valid ones), else native. */
DLK_COMM_API dlk_comm_status dlk_comm_create(MPI_Comm mpi_comm, dlk_comm *comm);
/* As dlk_comm_create(MPI_COMM_WORLD), first initializing MPI at
 * MPI_THREAD_MULTIPLE when nobody has; MPI is then finalized by the
 * dlk_comm_destroy of the last communicator made this way. */
DLK_COMM_API dlk_comm_status dlk_comm_create_world(dlk_comm *comm);
/* Collective; waits for pending requests. Buffers and synchronizers of the
 * communicator must be destroyed first. NULL is a no-op. */
DLK_COMM_API dlk_comm_status dlk_comm_destroy(dlk_comm comm);
DLK_COMM_API dlk_comm_status dlk_comm_get_properties(dlk_comm comm,
                                                     dlk_comm_properties *properties);

/* Defaults: the communicator's algorithm, no average, codec block sizes, round
 * to nearest even, seed 0, topk_fraction 0.01, no warm-up, no size threshold. */
DLK_COMM_API dlk_comm_status dlk_comm_config_init(dlk_comm_config *config);

/* A buffer of `count` floats all-reduced the same way every call: it holds the
 * residuals of the compressed algorithms. Local (not collective). */
DLK_COMM_API dlk_comm_status dlk_comm_buffer_create(dlk_comm comm, uint64_t count,
                                                    const dlk_comm_config *config,
                                                    dlk_comm_buffer *buffer);
/* NULL is a no-op; the buffer must have no pending request. */
DLK_COMM_API dlk_comm_status dlk_comm_buffer_destroy(dlk_comm_buffer buffer);

/* Collective. data[0, count) is replaced by the sum (or average) over the ranks.
 * report may be NULL. */
DLK_COMM_API dlk_comm_status dlk_comm_allreduce(dlk_comm_buffer buffer, float *data,
                                                dlk_comm_report *report);
/* Collective; starts the all-reduce and returns a request. data must not be
 * touched until dlk_comm_wait (or a dlk_comm_test that says done). */
DLK_COMM_API dlk_comm_status dlk_comm_iallreduce(dlk_comm_buffer buffer, float *data,
                                                 dlk_comm_request *request);
/* *done = nonzero when the request has finished (then call dlk_comm_wait). */
DLK_COMM_API dlk_comm_status dlk_comm_test(dlk_comm_request request, int *done);
/* Waits, frees the request and returns the all-reduce's own status (with its
 * message); report may be NULL. */
DLK_COMM_API dlk_comm_status dlk_comm_wait(dlk_comm_request request, dlk_comm_report *report);

/* Zeroes the worker- and server-side residuals (after a skipped step, say). */
DLK_COMM_API dlk_comm_status dlk_comm_buffer_reset_residuals(dlk_comm_buffer buffer);
/* Checkpoints: the bytes the buffer's state needs, then save and restore it. The
 * state holds the residuals and the call counter (warm-up, stochastic rounding);
 * load checks that it belongs to a buffer of the same count, algorithm, rank and
 * rank count. */
DLK_COMM_API dlk_comm_status dlk_comm_buffer_state_size(dlk_comm_buffer buffer, size_t *bytes);
DLK_COMM_API dlk_comm_status dlk_comm_buffer_save_state(dlk_comm_buffer buffer, void *state,
                                                        size_t capacity);
DLK_COMM_API dlk_comm_status dlk_comm_buffer_load_state(dlk_comm_buffer buffer,
                                                        const void *state, size_t size);

/* ---------------------------------------------------------------- synchronizer
 * Register every gradient (dlk_comm_sync_add, in the order the backward pass
 * produces them), then dlk_comm_sync_commit. Each step: dlk_comm_sync_ready for
 * every gradient as the backward pass finishes it, then dlk_comm_sync_wait.
 * Gradients are fused into buckets of at most bucket_bytes (a larger gradient
 * gets a bucket of its own); a bucket's all-reduce starts as soon as it and every
 * bucket before it are ready, so that every rank starts them in the same order. */

typedef struct dlk_comm_sync_report {
  uint32_t buckets;
  uint64_t logical_bytes, wire_bytes_sent, wire_bytes_received;
  double communication_seconds; /* sum over buckets of their all-reduce time */
  double overlapped_seconds;    /* of that, the part that ran before dlk_comm_sync_wait */
  double wait_seconds;          /* time dlk_comm_sync_wait blocked */
} dlk_comm_sync_report;

/* bucket_bytes 0 means DLK_COMM_DEFAULT_BUCKET_BYTES. Local. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_create(dlk_comm comm, const dlk_comm_config *config,
                                                  uint64_t bucket_bytes, dlk_comm_sync *sync);
DLK_COMM_API dlk_comm_status dlk_comm_sync_destroy(dlk_comm_sync sync);
/* Registers gradient[0, count); *index gets its number (0, 1, ...). */
DLK_COMM_API dlk_comm_status dlk_comm_sync_add(dlk_comm_sync sync, float *gradient,
                                               uint64_t count, uint32_t *index);
/* Collective: builds the buckets and checks that every rank has the same layout. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_commit(dlk_comm_sync sync);
DLK_COMM_API dlk_comm_status dlk_comm_sync_bucket_count(dlk_comm_sync sync, uint32_t *buckets);
/* The gradient holds its final value for this step. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_ready(dlk_comm_sync sync, uint32_t index);
/* Local: the bucket that gradient `index` is in (after dlk_comm_sync_commit). */
DLK_COMM_API dlk_comm_status dlk_comm_sync_gradient_bucket(dlk_comm_sync sync, uint32_t index,
                                                           uint32_t *bucket);
/* Local: returns once bucket `bucket` of this step is all-reduced and its sums
 * are in its gradients (its error, if it failed), so that the caller can use
 * them (an optimizer step) while later buckets are still on the wire. A bucket
 * that has not started (a gradient of it or of an earlier bucket not ready) is
 * refused. The step still ends with dlk_comm_sync_wait. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_wait_bucket(dlk_comm_sync sync, uint32_t bucket);
/* Collective: returns when every bucket is all-reduced and copied back. report
 * and bucket_reports (an array of dlk_comm_sync_bucket_count entries) may be NULL. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_wait(dlk_comm_sync sync, dlk_comm_sync_report *report,
                                                dlk_comm_report *bucket_reports);
/* For a step timeline: when each bucket's all-reduce of the last step started
 * and ended (copies in and out included), in seconds of CLOCK_MONOTONIC (C++'s
 * std::chrono::steady_clock on Linux); 0 for a bucket that has not run. starts
 * and ends have dlk_comm_sync_bucket_count entries each. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_bucket_times(dlk_comm_sync sync, double *starts,
                                                        double *ends);
/* The calls below run between steps only (no gradient ready since the last
 * dlk_comm_sync_wait). Zeroes every bucket's residuals, as
 * dlk_comm_buffer_reset_residuals: called after every wait, the compressed
 * algorithms run without error feedback. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_reset_residuals(dlk_comm_sync sync);
/* Checkpoints: the state of bucket `bucket` (0 to dlk_comm_sync_bucket_count - 1),
 * as dlk_comm_buffer_state_size, _save_state and _load_state do for a buffer. */
DLK_COMM_API dlk_comm_status dlk_comm_sync_bucket_state_size(dlk_comm_sync sync, uint32_t bucket,
                                                             size_t *bytes);
DLK_COMM_API dlk_comm_status dlk_comm_sync_save_bucket_state(dlk_comm_sync sync, uint32_t bucket,
                                                             void *state, size_t capacity);
DLK_COMM_API dlk_comm_status dlk_comm_sync_load_bucket_state(dlk_comm_sync sync, uint32_t bucket,
                                                             const void *state, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DLK_DLK_COMM_H */
