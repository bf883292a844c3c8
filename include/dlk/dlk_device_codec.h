/*
 * dlk device codecs: libdlk_compress's codecs run on a context's device, in
 * libdlk. A gradient in device memory is encoded there, so that only the message
 * crosses to the host (and the network); a received message is decoded, or
 * decoded and added, there too. Same wire format (docs/wire-format.md), same
 * parameters (dlk_codec_params, dlk_compress.h) and, for every codec a backend
 * runs, the same bytes as dlk_compress_encode on the same input: messages,
 * residuals and decoded values are bit-identical to the CPU's.
 *
 * Backends: cuda runs onebit, int8, int4 (both roundings), fp16 and bf16. topk
 * and backends whose memory is the host's (cpu, fpga_sim, which use
 * libdlk_compress on their buffers directly) return DLK_STATUS_UNSUPPORTED, after
 * the arguments have been validated.
 *
 * Conventions of dlk.h, and:
 * - input, residual, output, accumulator and message are memory of the context's
 *   backend (dlk_malloc); float buffers 4-byte aligned, messages at any address.
 *   Size the message with dlk_compress_max_message_size (libdlk_compress) or
 *   dlk_codec_max_message_size below.
 * - Calls are ordered on the context's stream, as ops are: encode returns once
 *   the work is queued (message_size is known on the host from the parameters),
 *   and a dlk_memcpy of the message to the host waits for it. A decode reads the
 *   message's header (and the last payload byte) to the host first, so it waits
 *   for earlier work on the context.
 * - A message that fails validation (docs/wire-format.md) is
 *   DLK_STATUS_INVALID_ARGUMENT naming 'message' with "corrupt message" and why;
 *   a newer format version is DLK_STATUS_UNSUPPORTED. Nothing is written then.
 */
#ifndef DLK_DLK_DEVICE_CODEC_H
#define DLK_DLK_DEVICE_CODEC_H

#include "dlk/dlk.h"
#include "dlk/dlk_compress.h"

#ifdef __cplusplus
extern "C" {
#endif

/* dlk_compress_max_message_size, without linking libdlk_compress. */
DLK_API dlk_status dlk_codec_max_message_size(const dlk_codec_params *params, uint64_t count,
                                              size_t *bytes);

/* Encode input[0, count) (plus residual when not NULL; then residual = v -
 * decode(message) afterwards) into message, whose capacity must be at least
 * dlk_codec_max_message_size; *message_size (host memory) gets the bytes written. */
DLK_API dlk_status dlk_codec_encode(dlk_context_t context, const dlk_codec_params *params,
                                    const float *input, float *residual, uint64_t count,
                                    void *message, size_t capacity, size_t *message_size);

/* output[0, count) = decode(message); message_size is the message's exact size,
 * count its element count. */
DLK_API dlk_status dlk_codec_decode(dlk_context_t context, const void *message,
                                    size_t message_size, float *output, uint64_t count);

/* accumulator[i] += decode(message)[i], one float addition per element. */
DLK_API dlk_status dlk_codec_decode_add(dlk_context_t context, const void *message,
                                        size_t message_size, float *accumulator,
                                        uint64_t count);

#ifdef __cplusplus
}
#endif

#endif /* DLK_DLK_DEVICE_CODEC_H */
