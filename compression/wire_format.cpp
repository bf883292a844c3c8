#include "compression/wire_format.hpp"

#include <cstring>
#include <string>

#include "compression/byte_order.hpp"
#include "compression/crc32c.hpp"
#include "compression/error.hpp"

namespace dlk::codec::wire {

void write_header(uint8_t *message, const Header &header) {
  std::memcpy(message + kOffsetMagic, kMagic, sizeof kMagic);
  store_le<uint16_t>(message + kOffsetVersion, kVersion);
  message[kOffsetAlgorithm] = static_cast<uint8_t>(header.algorithm);
  message[kOffsetFlags] = 0;
  store_le<uint64_t>(message + kOffsetElementCount, header.element_count);
  store_le<uint64_t>(message + kOffsetPayloadSize, header.payload_size);
  store_le<uint32_t>(message + kOffsetBlockSize, header.block_size);
  store_le<uint32_t>(message + kOffsetChecksum, crc32c(message, kOffsetChecksum));
}

Header read_header(const char *call, const uint8_t *message, size_t message_size) {
  if (message_size < kHeaderSize)
    throw_corrupt(call, std::to_string(message_size) + " bytes, shorter than the " +
                            std::to_string(kHeaderSize) + "-byte header");
  if (std::memcmp(message + kOffsetMagic, kMagic, sizeof kMagic) != 0)
    throw_corrupt(call, "wrong magic (not a dlk_compress message)");
  // A newer version may lay its header out differently, so the version is
  // checked before the checksum that this version defines.
  const uint16_t version = load_le<uint16_t>(message + kOffsetVersion);
  if (version > kVersion)
    throw_unsupported(call, "message format version " + std::to_string(version) +
                                " is newer than this library's " + std::to_string(kVersion));
  if (version == 0) throw_corrupt(call, "format version 0 does not exist");
  const uint32_t stored = load_le<uint32_t>(message + kOffsetChecksum);
  if (stored != crc32c(message, kOffsetChecksum))
    throw_corrupt(call, "header checksum mismatch");
  if (message[kOffsetFlags] != 0)
    throw_corrupt(call, "reserved flags byte is " + std::to_string(message[kOffsetFlags]) +
                            ", must be 0");

  Header h;
  const uint8_t algorithm = message[kOffsetAlgorithm];
  if (algorithm < DLK_CODEC_ONEBIT || algorithm > DLK_CODEC_BF16)
    throw_corrupt(call, "unknown algorithm " + std::to_string(algorithm));
  h.algorithm = static_cast<dlk_codec_algorithm>(algorithm);
  h.version = version;
  h.element_count = load_le<uint64_t>(message + kOffsetElementCount);
  if (h.element_count > DLK_CODEC_MAX_ELEMENTS)
    throw_corrupt(call, "element count " + std::to_string(h.element_count) +
                            " exceeds the limit of 2^48");
  h.payload_size = load_le<uint64_t>(message + kOffsetPayloadSize);
  h.block_size = load_le<uint32_t>(message + kOffsetBlockSize);
  return h;
}

}  // namespace dlk::codec::wire
