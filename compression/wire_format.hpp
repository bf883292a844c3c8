// The message header, byte by byte (docs/wire-format.md), little-endian:
//
//   offset size field
//        0    4 magic "DLKC" (44 4C 4B 43)
//        4    2 format version (1)
//        6    1 algorithm (dlk_codec_algorithm)
//        7    1 flags (reserved, 0)
//        8    8 element count
//       16    8 payload size in bytes (the message is header + payload, exactly)
//       24    4 block size (onebit, int8, int4; 0 otherwise)
//       28    4 CRC-32C of bytes 0..27
//
// Everything an algorithm puts after the header is checked by that algorithm's
// codec (codec.hpp) against the fields read here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dlk/dlk_compress.h"

namespace dlk::codec::wire {

constexpr size_t kHeaderSize = DLK_CODEC_HEADER_SIZE;
constexpr uint8_t kMagic[4] = {'D', 'L', 'K', 'C'};
constexpr uint16_t kVersion = DLK_CODEC_FORMAT_VERSION;

constexpr size_t kOffsetMagic = 0;
constexpr size_t kOffsetVersion = 4;
constexpr size_t kOffsetAlgorithm = 6;
constexpr size_t kOffsetFlags = 7;
constexpr size_t kOffsetElementCount = 8;
constexpr size_t kOffsetPayloadSize = 16;
constexpr size_t kOffsetBlockSize = 24;
constexpr size_t kOffsetChecksum = 28;

struct Header {
  dlk_codec_algorithm algorithm;
  uint16_t version;  // read_header: the message's; write_header writes kVersion
  uint64_t element_count;
  uint64_t payload_size;
  uint32_t block_size;
};

// Writes the 32 header bytes, checksum included.
void write_header(uint8_t *message, const Header &header);

// Checks the header fields that do not depend on the algorithm (size of the
// buffer for the header, magic, version, checksum, flags, a known algorithm, the
// element-count limit) and returns them; throws Error otherwise. The payload is
// not looked at.
Header read_header(const char *call, const uint8_t *message, size_t message_size);

}  // namespace dlk::codec::wire
