#include "compression/codec.hpp"

namespace dlk::codec {

const Codec &codec_for(dlk_codec_algorithm algorithm) {
  switch (algorithm) {
    case DLK_CODEC_ONEBIT: return kOnebitCodec;
    case DLK_CODEC_TOPK: return kTopkCodec;
    case DLK_CODEC_INT8: return kInt8Codec;
    case DLK_CODEC_INT4: return kInt4Codec;
    case DLK_CODEC_FP16: return kFp16Codec;
    case DLK_CODEC_BF16: break;
  }
  return kBf16Codec;  // callers pass only validated algorithms
}

}  // namespace dlk::codec
