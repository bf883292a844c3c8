// C ABI: libdlk_compress's codecs on a context's device (include/dlk/dlk_device_codec.h).
// Core does the framing on the host with compression/'s own rules (parameters,
// payload sizes, the header and its checks), so every message is judged by the
// same code as libdlk_compress's; the backend writes and reads only the payload.
#include <cstdint>
#include <string>

#include "compression/error.hpp"
#include "compression/message_shape.hpp"
#include "compression/params.hpp"
#include "compression/wire_format.hpp"
#include "core/api_guard.hpp"
#include "core/context.hpp"
#include "dlk/dlk_device_codec.h"

using namespace dlk::core;
namespace codec = dlk::codec;

namespace {

constexpr size_t kHeaderSize = codec::wire::kHeaderSize;

// Runs compression's checks and reports their errors as dlk's: a corrupt message
// is an invalid argument whose message says "corrupt message".
template <class Body>
auto as_dlk_error(Body &&body) {
  try {
    return body();
  } catch (const codec::Error &e) {
    switch (e.status()) {
      case DLK_CODEC_UNSUPPORTED: throw Error(DLK_STATUS_UNSUPPORTED, e.what());
      case DLK_CODEC_OUT_OF_MEMORY: throw Error(DLK_STATUS_OUT_OF_MEMORY, e.what());
      case DLK_CODEC_INTERNAL_ERROR: throw Error(DLK_STATUS_INTERNAL_ERROR, e.what());
      default: throw Error(DLK_STATUS_INVALID_ARGUMENT, e.what());
    }
  }
}

void not_null(const char *call, const char *argument, const void *p) {
  if (!p) throw_invalid(call, argument, "must not be NULL");
}

void float_buffer(const char *call, const char *argument, const float *p, uint64_t count) {
  if (count > 0) not_null(call, argument, p);
  if (reinterpret_cast<uintptr_t>(p) % alignof(float) != 0)
    throw_invalid(call, argument, "must be 4-byte aligned");
}

void no_overlap(const char *call, const char *a_name, const void *a, uint64_t a_bytes,
                const char *b_name, const void *b, uint64_t b_bytes) {
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (a && b && a_bytes && b_bytes && x < y + b_bytes && y < x + a_bytes)
    throw_invalid(call, a_name, std::string("overlaps '") + b_name + "'");
}

void require_codec(const char *call, const dlk_context &ctx, const dlk_codec_params &params) {
  if (!ctx.backend->supports_codec(params))
    throw_unsupported(call, std::string("backend '") + ctx.backend->name() + "' does not run the " +
                                codec::algorithm_name(params.algorithm) +
                                " codec on its device (libdlk_compress runs every codec on host memory)");
}

void decode(const char *call, dlk_context_t context, const void *message, size_t message_size,
            float *output, uint64_t count, bool accumulate) {
  dlk_context &ctx = checked_context(call, context);
  const char *output_name = accumulate ? "accumulator" : "output";
  if (message_size > 0) not_null(call, "message", message);
  float_buffer(call, output_name, output, count);
  no_overlap(call, output_name, output, 4 * count, "message", message, message_size);
  // A codec the backend lacks is known from the header; its memory rule holds for
  // every codec it runs, and a host pointer must not reach a device copy.
  if (message_size > 0) ctx.backend->require_codec_memory(call, "message", message);
  if (count > 0) ctx.backend->require_codec_memory(call, output_name, output);
  const ExclusiveUse claim(ctx, call);

  // The header, then (for a blocked codec whose codes do not fill the last byte)
  // the last payload byte, come to the host to be checked before anything runs.
  uint8_t header[kHeaderSize] = {};
  if (message_size >= kHeaderSize)
    ctx.backend->copy(header, message, kHeaderSize, DLK_COPY_DEVICE_TO_HOST);
  const auto *bytes = static_cast<const uint8_t *>(message);
  const codec::wire::Header h = as_dlk_error([&] {
    const codec::wire::Header read = codec::wire::read_header(call, header, message_size);
    if (read.payload_size != message_size - kHeaderSize)
      codec::throw_corrupt(call, "header says " + std::to_string(read.payload_size) +
                                     " payload bytes, the buffer holds " +
                                     std::to_string(message_size - kHeaderSize));
    codec::validate_shape(call, read, [&] {
      uint8_t last = 0;
      ctx.backend->copy(&last, bytes + message_size - 1, 1, DLK_COPY_DEVICE_TO_HOST);
      return last;
    });
    return read;
  });
  if (h.element_count != count)
    throw_invalid(call, "count",
                  "is " + std::to_string(count) + "; the message holds " +
                      std::to_string(h.element_count) + " elements");
  dlk_codec_params params;
  codec::default_params(params, h.algorithm);
  params.block_size = h.block_size;
  require_codec(call, ctx, params);
  ctx.backend->codec_decode({call, h.algorithm, h.block_size, count, bytes + kHeaderSize,
                             h.payload_size, output, accumulate});
}

}  // namespace

extern "C" {

dlk_status dlk_codec_max_message_size(const dlk_codec_params *params, uint64_t count,
                                      size_t *bytes) {
  constexpr const char *kCall = "dlk_codec_max_message_size";
  return api_guard(kCall, [&] {
    not_null(kCall, "params", params);
    not_null(kCall, "bytes", bytes);
    as_dlk_error([&] { codec::validate_params(kCall, *params, count); });
    *bytes = kHeaderSize + codec::max_payload_size(*params, count);
  });
}

dlk_status dlk_codec_encode(dlk_context_t context, const dlk_codec_params *params,
                            const float *input, float *residual, uint64_t count, void *message,
                            size_t capacity, size_t *message_size) {
  constexpr const char *kCall = "dlk_codec_encode";
  return api_guard(kCall, [&] {
    dlk_context &ctx = checked_context(kCall, context);
    not_null(kCall, "params", params);
    as_dlk_error([&] { codec::validate_params(kCall, *params, count); });
    float_buffer(kCall, "input", input, count);
    float_buffer(kCall, "residual", residual, 0);
    not_null(kCall, "message", message);
    not_null(kCall, "message_size", message_size);
    const uint64_t payload_size = codec::max_payload_size(*params, count);
    const uint64_t needed = kHeaderSize + payload_size;
    if (capacity < needed)
      throw_invalid(kCall, "capacity",
                    "is " + std::to_string(capacity) + " bytes; this message may need " +
                        std::to_string(needed) + " (dlk_codec_max_message_size)");
    no_overlap(kCall, "residual", residual, 4 * count, "input", input, 4 * count);
    no_overlap(kCall, "message", message, needed, "input", input, 4 * count);
    no_overlap(kCall, "message", message, needed, "residual", residual, 4 * count);
    require_codec(kCall, ctx, *params);
    if (count > 0) ctx.backend->require_codec_memory(kCall, "input", input);
    if (residual && count > 0) ctx.backend->require_codec_memory(kCall, "residual", residual);
    ctx.backend->require_codec_memory(kCall, "message", message);
    const ExclusiveUse claim(ctx, kCall);

    // Every codec a device runs writes exactly the most payload bytes (all but
    // sampled topk do), so the header is known before the payload and the call
    // can return with the work queued on the context's stream.
    uint8_t header[kHeaderSize];
    codec::wire::write_header(header, {params->algorithm, codec::wire::kVersion, count, payload_size,
                                       codec::blocked_algorithm(params->algorithm) ? params->block_size : 0});
    const uint64_t written = ctx.backend->codec_encode({*params, input, residual, count, header, message});
    if (written != payload_size)
      throw Error(DLK_STATUS_INTERNAL_ERROR, std::string(kCall) + ": backend '" + ctx.backend->name() +
                                                 "' wrote " + std::to_string(written) + " payload bytes, not " +
                                                 std::to_string(payload_size));
    *message_size = kHeaderSize + written;
  });
}

dlk_status dlk_codec_decode(dlk_context_t context, const void *message, size_t message_size,
                            float *output, uint64_t count) {
  constexpr const char *kCall = "dlk_codec_decode";
  return api_guard(kCall, [&] { decode(kCall, context, message, message_size, output, count, false); });
}

dlk_status dlk_codec_decode_add(dlk_context_t context, const void *message, size_t message_size,
                                float *accumulator, uint64_t count) {
  constexpr const char *kCall = "dlk_codec_decode_add";
  return api_guard(kCall,
                   [&] { decode(kCall, context, message, message_size, accumulator, count, true); });
}

}  // extern "C"
