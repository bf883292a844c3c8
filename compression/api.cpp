// The C ABI of libdlk_compress (include/dlk/dlk_compress.h): argument checks,
// then the codec of the algorithm. Every entry point runs through api_guard.
#include <string>

#include "compression/api_guard.hpp"
#include "compression/codec.hpp"
#include "compression/isa.hpp"
#include "compression/message_shape.hpp"
#include "compression/params.hpp"
#include "compression/wire_format.hpp"

static_assert(sizeof(size_t) == 8, "libdlk_compress sizes buffers of up to 2^48 elements");

namespace dlk::codec {
namespace {

// Decoded outputs of at least this many bytes are written with non-temporal
// stores. Measured on Zen 5 with a 32 MiB L3: regular stores win up to 32 MiB of
// output (the output then stays in cache), streaming ones from 64 MiB (onebit
// decode 78-82 % of the read roof against 66-73 %), as glibc's memcpy switches at
// a fraction of the shared cache.
constexpr uint64_t kStreamingStoreBytes = uint64_t(48) << 20;

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

uint64_t max_message_size(const dlk_codec_params &params, uint64_t count) {
  return wire::kHeaderSize + max_payload_size(params, count);
}

// Header, then payload size, then the algorithm's own checks; returns the header.
wire::Header validate_message(const char *call, const uint8_t *message, size_t message_size) {
  const wire::Header h = wire::read_header(call, message, message_size);
  if (h.payload_size != message_size - wire::kHeaderSize)
    throw_corrupt(call, "header says " + std::to_string(h.payload_size) +
                            " payload bytes, the buffer holds " +
                            std::to_string(message_size - wire::kHeaderSize));
  const uint8_t *payload = message + wire::kHeaderSize;
  validate_shape(call, h, [&] { return payload[h.payload_size - 1]; });
  if (const auto check = codec_for(h.algorithm).validate_payload) check(call, h, payload);
  return h;
}

void decode_message(const char *call, const void *message, size_t message_size, float *output,
                    uint64_t count, bool accumulate) {
  if (message_size > 0) not_null(call, "message", message);
  float_buffer(call, accumulate ? "accumulator" : "output", output, count);
  const auto *bytes = static_cast<const uint8_t *>(message);
  const wire::Header h = validate_message(call, bytes, message_size);
  if (h.element_count != count)
    throw_invalid(call, "count",
                  "is " + std::to_string(count) + "; the message holds " +
                      std::to_string(h.element_count) + " elements");
  no_overlap(call, accumulate ? "accumulator" : "output", output, 4 * count, "message", message,
             message_size);
  const KernelTable &kernels = active_kernels(call);
  const Store store = accumulate                       ? Store::accumulate
                      : count * 4 >= kStreamingStoreBytes ? Store::overwrite_streaming
                                                           : Store::overwrite;
  codec_for(h.algorithm).decode({h, bytes + wire::kHeaderSize, output, store, kernels});
}

}  // namespace
}  // namespace dlk::codec

using namespace dlk::codec;

extern "C" {

const char *dlk_compress_status_name(dlk_codec_status status) {
  switch (stored_int(status)) {
    case DLK_CODEC_SUCCESS: return "success";
    case DLK_CODEC_INVALID_ARGUMENT: return "invalid_argument";
    case DLK_CODEC_CORRUPT_MESSAGE: return "corrupt_message";
    case DLK_CODEC_UNSUPPORTED: return "unsupported";
    case DLK_CODEC_OUT_OF_MEMORY: return "out_of_memory";
    case DLK_CODEC_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown";
}

const char *dlk_compress_algorithm_name(dlk_codec_algorithm algorithm) {
  return algorithm_name(stored_int(algorithm));
}

const char *dlk_compress_last_error(void) { return last_error(); }

dlk_codec_status dlk_compress_params_init(dlk_codec_params *params,
                                          dlk_codec_algorithm algorithm) {
  constexpr const char *kCall = "dlk_compress_params_init";
  return api_guard(kCall, [&] {
    not_null(kCall, "params", params);
    if (!known_algorithm(stored_int(algorithm)))
      throw_invalid(kCall, "algorithm",
                    "is " + std::to_string(stored_int(algorithm)) +
                        "; valid values: onebit, topk, int8, int4, fp16, bf16 (1 to 6)");
    default_params(*params, algorithm);
  });
}

dlk_codec_status dlk_compress_max_message_size(const dlk_codec_params *params, uint64_t count,
                                               size_t *bytes) {
  constexpr const char *kCall = "dlk_compress_max_message_size";
  return api_guard(kCall, [&] {
    not_null(kCall, "params", params);
    not_null(kCall, "bytes", bytes);
    validate_params(kCall, *params, count);
    *bytes = max_message_size(*params, count);
  });
}

dlk_codec_status dlk_compress_encode(const dlk_codec_params *params, const float *input,
                                     float *residual, uint64_t count, void *message,
                                     size_t capacity, size_t *message_size) {
  constexpr const char *kCall = "dlk_compress_encode";
  return api_guard(kCall, [&] {
    not_null(kCall, "params", params);
    validate_params(kCall, *params, count);
    float_buffer(kCall, "input", input, count);
    float_buffer(kCall, "residual", residual, 0);
    not_null(kCall, "message", message);
    not_null(kCall, "message_size", message_size);
    const uint64_t needed = max_message_size(*params, count);
    if (capacity < needed)
      throw_invalid(kCall, "capacity",
                    "is " + std::to_string(capacity) + " bytes; this message may need " +
                        std::to_string(needed) + " (dlk_compress_max_message_size)");
    no_overlap(kCall, "residual", residual, 4 * count, "input", input, 4 * count);
    no_overlap(kCall, "message", message, needed, "input", input, 4 * count);
    no_overlap(kCall, "message", message, needed, "residual", residual, 4 * count);
    const KernelTable &kernels = active_kernels(kCall);

    auto *bytes = static_cast<uint8_t *>(message);
    const uint64_t payload_size = codec_for(params->algorithm).encode(
        {*params, input, residual, count, bytes + wire::kHeaderSize, kernels});
    wire::write_header(bytes, {params->algorithm, wire::kVersion, count, payload_size,
                               blocked_algorithm(params->algorithm) ? params->block_size : 0});
    *message_size = wire::kHeaderSize + payload_size;
  });
}

dlk_codec_status dlk_compress_inspect(const void *message, size_t message_size,
                                      dlk_codec_message_info *info) {
  constexpr const char *kCall = "dlk_compress_inspect";
  return api_guard(kCall, [&] {
    if (message_size > 0) not_null(kCall, "message", message);
    not_null(kCall, "info", info);
    const wire::Header h =
        wire::read_header(kCall, static_cast<const uint8_t *>(message), message_size);
    if (h.payload_size > DLK_CODEC_MAX_ELEMENTS * 8)
      throw_corrupt(kCall, "payload size " + std::to_string(h.payload_size) +
                               " exceeds what any message of at most 2^48 elements holds");
    *info = {h.algorithm, h.version, h.element_count, h.block_size, h.payload_size,
             wire::kHeaderSize + h.payload_size};
  });
}

dlk_codec_status dlk_compress_decode(const void *message, size_t message_size, float *output,
                                     uint64_t count) {
  constexpr const char *kCall = "dlk_compress_decode";
  return api_guard(kCall,
                   [&] { decode_message(kCall, message, message_size, output, count, false); });
}

dlk_codec_status dlk_compress_decode_add(const void *message, size_t message_size,
                                         float *accumulator, uint64_t count) {
  constexpr const char *kCall = "dlk_compress_decode_add";
  return api_guard(kCall,
                   [&] { decode_message(kCall, message, message_size, accumulator, count, true); });
}

dlk_codec_status dlk_compress_set_isa(const char *isa) {
  constexpr const char *kCall = "dlk_compress_set_isa";
  return api_guard(kCall, [&] { select_isa(kCall, isa); });
}

dlk_codec_status dlk_compress_get_isa(const char **isa) {
  constexpr const char *kCall = "dlk_compress_get_isa";
  return api_guard(kCall, [&] {
    not_null(kCall, "isa", isa);
    *isa = active_kernels(kCall).isa;
  });
}

}  // extern "C"
