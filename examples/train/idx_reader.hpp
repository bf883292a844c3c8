// The IDX files of MNIST and Fashion-MNIST (gzip-compressed or not): a big-endian
// header (0, 0, type 0x08 = unsigned byte, rank; then one uint32 per dimension)
// followed by the bytes. Every defect is reported naming the file and what is wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace dlk_train {

struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;  // row-major, dims' product bytes
};

// std::runtime_error whose what() is "<file>: <what is wrong>".
class IdxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses a whole file's bytes; name is what messages call it. The array may hold
// at most max_bytes of data (a header claiming more is refused before inflating).
IdxArray parse_idx(const uint8_t *bytes, size_t size, const std::string &name,
                   uint64_t max_bytes = uint64_t{1} << 30);

IdxArray read_idx_file(const std::string &path);

}  // namespace dlk_train
