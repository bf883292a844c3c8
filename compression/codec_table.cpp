#include "compression/codec.hpp"

namespace dlk::codec {

const Codec &codec_for(dlk_codec_algorithm algorithm) {
  // In the order of dlk_codec_algorithm's values, 1 to 6; callers pass only
  // validated algorithms.
  static const Codec *const kCodecs[] = {&kOnebitCodec, &kTopkCodec, &kInt8Codec,
                                         &kInt4Codec,   &kFp16Codec, &kBf16Codec};
  return *kCodecs[algorithm - DLK_CODEC_ONEBIT];
}

}  // namespace dlk::codec
