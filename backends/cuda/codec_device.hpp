// The device codecs' payloads (core/backend.hpp's CodecEncodeArgs and
// CodecDecodeArgs) laid out as docs/wire-format.md says and handed to the kernels
// of codec_kernels.cu on the backend's stream.
#pragma once

#include <cuda_runtime.h>

#include "core/backend.hpp"

namespace dlk::cuda {

// Whether the kernels run this codec: every algorithm but topk.
bool device_codec_supports(const dlk_codec_params &params);

// Queues the header copy and the payload's kernels; returns the payload bytes.
uint64_t device_codec_encode(const core::CodecEncodeArgs &args, cudaStream_t stream);
void device_codec_decode(const core::CodecDecodeArgs &args, cudaStream_t stream);

}  // namespace dlk::cuda
