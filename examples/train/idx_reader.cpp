#include "idx_reader.hpp"

#include <cstring>
#include <fstream>
#include <iterator>

#include <zlib.h>

namespace dlk_train {

namespace {

constexpr uint8_t kUnsignedByte = 0x08;
constexpr size_t kMaxRank = 4;

[[noreturn]] void fail(const std::string &name, const std::string &what) {
  throw IdxError(name + ": " + what);
}

// Produces the uncompressed bytes of a gzip stream, or of a raw file, on demand.
class Source {
 public:
  Source(const uint8_t *bytes, size_t size, const std::string &name)
      : bytes_(bytes), size_(size), name_(name) {
    gzip_ = size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
    if (!gzip_) return;
    std::memset(&zs_, 0, sizeof zs_);
    if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) fail(name_, "zlib could not start inflating");
    open_ = true;
    zs_.next_in = const_cast<Bytef *>(bytes);  // zlib's API is not const-correct
    zs_.avail_in = static_cast<uInt>(size);
    if (size > UINT32_MAX) fail(name_, "is larger than 4 GiB");
  }
  ~Source() {
    if (open_) inflateEnd(&zs_);
  }
  Source(const Source &) = delete;
  Source &operator=(const Source &) = delete;

  // Fills out[0, n) exactly; `what` names the part for the message on a short file.
  void read(uint8_t *out, size_t n, const char *what) {
    if (!gzip_) {
      if (size_ - offset_ < n)
        fail(name_, std::string("is truncated: ") + what + " needs " + std::to_string(n) +
                        " bytes, " + std::to_string(size_ - offset_) + " are left");
      std::memcpy(out, bytes_ + offset_, n);
      offset_ += n;
      return;
    }
    size_t done = 0;
    while (done < n) {
      const size_t chunk = std::min<size_t>(n - done, size_t{1} << 30);
      zs_.next_out = out + done;
      zs_.avail_out = static_cast<uInt>(chunk);
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      done += chunk - zs_.avail_out;
      if (rc == Z_STREAM_END) {
        ended_ = true;
        if (done < n)
          fail(name_, std::string("is truncated: ") + what + " needs " + std::to_string(n) +
                          " bytes, the data ends " + std::to_string(n - done) + " bytes short");
        break;
      }
      if (rc == Z_BUF_ERROR && zs_.avail_in == 0)
        fail(name_, std::string("is truncated: the gzip stream ends inside ") + what);
      if (rc != Z_OK)
        fail(name_, std::string("is not valid gzip (") + (zs_.msg ? zs_.msg : "zlib error") +
                        ") inside " + what);
    }
  }

  // After the last byte of the array: nothing may follow.
  void expect_end() {
    if (!gzip_) {
      if (offset_ != size_)
        fail(name_, std::to_string(size_ - offset_) + " bytes follow the data the header declares");
      return;
    }
    if (!ended_) {
      uint8_t extra = 0;
      zs_.next_out = &extra;
      zs_.avail_out = 1;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (zs_.avail_out == 0) fail(name_, "holds more data than the header declares");
      if (rc == Z_BUF_ERROR && zs_.avail_in == 0)
        fail(name_, "is truncated: the gzip stream ends before its checksum");
      if (rc != Z_STREAM_END)
        fail(name_, std::string("is not valid gzip (") + (zs_.msg ? zs_.msg : "zlib error") + ")");
    }
    if (zs_.avail_in != 0)
      fail(name_, std::to_string(zs_.avail_in) + " bytes follow the gzip stream");
  }

 private:
  const uint8_t *bytes_;
  size_t size_;
  size_t offset_ = 0;
  std::string name_;
  bool gzip_ = false, open_ = false, ended_ = false;
  z_stream zs_;
};

uint32_t big_endian(const uint8_t *p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

IdxArray parse_idx(const uint8_t *bytes, size_t size, const std::string &name,
                   uint64_t max_bytes) {
  if (size == 0) fail(name, "is empty");
  Source source(bytes, size, name);
  uint8_t magic[4];
  source.read(magic, 4, "the header");
  if (magic[0] != 0 || magic[1] != 0)
    fail(name, "is not an IDX file: its first two bytes are not 0 (magic number)");
  if (magic[2] != kUnsignedByte)
    fail(name, "holds data of type " + std::to_string(magic[2]) +
                   "; only unsigned bytes (0x08) are supported");
  const size_t rank = magic[3];
  if (rank == 0 || rank > kMaxRank)
    fail(name, "declares " + std::to_string(rank) + " dimensions; 1 to " +
                   std::to_string(kMaxRank) + " are supported");
  uint8_t raw[4 * kMaxRank];
  source.read(raw, 4 * rank, "the dimensions");
  IdxArray array;
  uint64_t elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    const uint32_t n = big_endian(raw + 4 * d);
    if (n == 0) fail(name, "dimension " + std::to_string(d) + " is 0");
    elements *= n;  // at most 4 factors below 2^32 each: checked against the cap as it grows
    if (elements > max_bytes)
      fail(name, "declares more than " + std::to_string(max_bytes) + " bytes of data");
    array.dims.push_back(n);
  }
  array.data.resize(static_cast<size_t>(elements));
  source.read(array.data.data(), array.data.size(), "the data");
  source.expect_end();
  return array;
}

IdxArray read_idx_file(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot be opened (") + std::strerror(errno) + ")");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) fail(path, "could not be read");
  return parse_idx(bytes.data(), bytes.size(), path);
}

}  // namespace dlk_train
