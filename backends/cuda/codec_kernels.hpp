// libdlk_compress's codecs as CUDA kernels (codec_kernels.cu): a message's
// payload (docs/wire-format.md) from device memory to device memory. The
// arithmetic is compression/kernels/numerics.hpp's, compiled for the device, with
// x86's NaN results; every sum runs in the CPU's order (a block's 16 lanes, each
// in index order, then halving). So payloads, residuals and decoded values are
// the CPU's bit for bit. Arguments are validated by core; pointers are device
// memory. Each launch returns the launch's error.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace dlk::cuda {

// Writes the 32 bytes of a message header (passed by value, so the launch does
// not wait for the stream as a copy from pageable host memory would).
cudaError_t launch_write_header(uint8_t *message, const uint8_t *header, cudaStream_t stream);

// block_means: per block (positive mean, negative mean); sign_bits: LSB first.
cudaError_t launch_onebit_encode(const float *input, float *residual, uint64_t count,
                                 uint32_t block_size, uint8_t *block_means, uint8_t *sign_bits,
                                 cudaStream_t stream);
cudaError_t launch_onebit_decode(const uint8_t *block_means, const uint8_t *sign_bits,
                                 uint64_t count, uint32_t block_size, float *output,
                                 bool accumulate, cudaStream_t stream);

// bits 8 or 4; key: numerics.hpp's stochastic_key (used when stochastic).
cudaError_t launch_quantize_encode(const float *input, float *residual, uint64_t count,
                                   uint32_t block_size, int bits, bool stochastic, uint64_t key,
                                   uint8_t *scales, uint8_t *codes, cudaStream_t stream);
cudaError_t launch_quantize_decode(const uint8_t *scales, const uint8_t *codes, uint64_t count,
                                   uint32_t block_size, int bits, float *output, bool accumulate,
                                   cudaStream_t stream);

// fp16 (bf16 false) or bf16: one little-endian u16 per element.
cudaError_t launch_cast_encode(const float *input, float *residual, uint64_t count, bool bf16,
                               uint8_t *codes, cudaStream_t stream);
cudaError_t launch_cast_decode(const uint8_t *codes, uint64_t count, bool bf16, float *output,
                               bool accumulate, cudaStream_t stream);

}  // namespace dlk::cuda
