// CRC-32C (Castagnoli polynomial, reflected, initial value and final xor
// 0xFFFFFFFF): the checksum of a message header. Headers are 28 bytes, so a table
// lookup per byte costs nothing next to the payload.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlk::codec {

uint32_t crc32c(const uint8_t *data, size_t size);

}  // namespace dlk::codec
