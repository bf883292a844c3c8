#include "backends/cuda/codec_device.hpp"

#include <string>

#include "backends/cuda/codec_kernels.hpp"
#include "backends/cuda/cuda_check.hpp"
#include "compression/blocked_layout.hpp"
#include "compression/kernels/numerics.hpp"
#include "compression/wire_format.hpp"

namespace dlk::cuda {

bool device_codec_supports(const dlk_codec_params &params) { return params.algorithm != DLK_CODEC_TOPK; }

uint64_t device_codec_encode(const core::CodecEncodeArgs &a, cudaStream_t stream) {
  auto *message = static_cast<uint8_t *>(a.message);
  static_assert(codec::wire::kHeaderSize == 32, "launch_write_header writes 32 bytes");
  check_cuda(launch_write_header(message, a.header, stream), "write_header kernel launch");
  uint8_t *payload = message + codec::wire::kHeaderSize;
  const dlk_codec_params &p = a.params;
  switch (p.algorithm) {
    case DLK_CODEC_FP16:
    case DLK_CODEC_BF16:
      check_cuda(launch_cast_encode(a.input, a.residual, a.count, p.algorithm == DLK_CODEC_BF16, payload, stream),
                 "cast_encode kernel launch");
      return 2 * a.count;
    case DLK_CODEC_ONEBIT:
    case DLK_CODEC_INT8:
    case DLK_CODEC_INT4: {
      const codec::BlockedShape shape = codec::blocked_shape(p.algorithm);
      const codec::BlockedLayout l =
          codec::blocked_layout(a.count, p.block_size, shape.bytes_per_block, shape.bits_per_element);
      if (p.algorithm == DLK_CODEC_ONEBIT) {
        check_cuda(launch_onebit_encode(a.input, a.residual, a.count, p.block_size, payload, payload + l.block_bytes,
                                        stream),
                   "onebit_encode kernel launch");
      } else {
        const bool stochastic = p.rounding == DLK_CODEC_ROUND_STOCHASTIC;
        check_cuda(launch_quantize_encode(a.input, a.residual, a.count, p.block_size,
                                          static_cast<int>(shape.bits_per_element), stochastic,
                                          codec::stochastic_key(p.seed, p.step, p.rank), payload,
                                          payload + l.block_bytes, stream),
                   "quantize_encode kernel launch");
      }
      return l.payload_size;
    }
    default:
      throw core::Error(DLK_STATUS_INTERNAL_ERROR, "dlk_codec_encode: cuda: no kernel for this codec");
  }
}

void device_codec_decode(const core::CodecDecodeArgs &a, cudaStream_t stream) {
  const auto *payload = static_cast<const uint8_t *>(a.payload);
  switch (a.algorithm) {
    case DLK_CODEC_FP16:
    case DLK_CODEC_BF16:
      check_cuda(launch_cast_decode(payload, a.count, a.algorithm == DLK_CODEC_BF16, a.output, a.accumulate, stream),
                 "cast_decode kernel launch");
      return;
    case DLK_CODEC_ONEBIT:
    case DLK_CODEC_INT8:
    case DLK_CODEC_INT4: {
      const codec::BlockedShape shape = codec::blocked_shape(a.algorithm);
      const codec::BlockedLayout l =
          codec::blocked_layout(a.count, a.block_size, shape.bytes_per_block, shape.bits_per_element);
      if (a.algorithm == DLK_CODEC_ONEBIT)
        check_cuda(launch_onebit_decode(payload, payload + l.block_bytes, a.count, a.block_size, a.output,
                                        a.accumulate, stream),
                   "onebit_decode kernel launch");
      else
        check_cuda(launch_quantize_decode(payload, payload + l.block_bytes, a.count, a.block_size,
                                          static_cast<int>(shape.bits_per_element), a.output, a.accumulate, stream),
                   "quantize_decode kernel launch");
      return;
    }
    default:
      throw core::Error(DLK_STATUS_INTERNAL_ERROR, std::string(a.call) + ": cuda: no kernel for this codec");
  }
}

}  // namespace dlk::cuda
