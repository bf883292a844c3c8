// How a buffer is split among ranks (and a segment into pipelined chunks): the
// first count % parts pieces are one element longer. Every rank computes the same
// split, so sizes never travel on the wire.
#pragma once

#include <cstdint>

namespace dlk::comm {

struct Span {
  uint64_t begin;
  uint64_t length;
};

inline Span split(uint64_t count, uint64_t parts, uint64_t index) {
  const uint64_t base = count / parts, extra = count % parts;
  return {index * base + (index < extra ? index : extra), base + (index < extra ? 1 : 0)};
}

}  // namespace dlk::comm
