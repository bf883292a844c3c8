// dlk-train's readers of outside files: IDX (raw and gzip) and checkpoints. Every
// defect is refused with a message naming the file and what is wrong.
#include <catch2/catch.hpp>

#include <cstring>

#include <zlib.h>

#include "checkpoint_format.hpp"
#include "idx_reader.hpp"

using namespace dlk_train;

namespace {

std::vector<uint8_t> idx_bytes(const std::vector<uint32_t> &dims, uint8_t fill) {
  std::vector<uint8_t> b = {0, 0, 0x08, static_cast<uint8_t>(dims.size())};
  size_t n = 1;
  for (const uint32_t d : dims) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<uint8_t>(d >> s));
    n *= d;
  }
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>(fill + i));
  return b;
}

std::vector<uint8_t> gzip(const std::vector<uint8_t> &raw) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::vector<uint8_t> out(deflateBound(&zs, raw.size()));
  zs.next_in = const_cast<Bytef *>(raw.data());
  zs.avail_in = static_cast<uInt>(raw.size());
  zs.next_out = out.data();
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

std::string idx_error(const std::vector<uint8_t> &b, uint64_t max_bytes = 1 << 20) {
  try {
    parse_idx(b.data(), b.size(), "f.idx", max_bytes);
  } catch (const IdxError &e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("IDX arrays read raw and gzip-compressed", "[train][idx]") {
  const std::vector<uint8_t> raw = idx_bytes({3, 4, 5}, 7);
  for (const auto &bytes : {raw, gzip(raw)}) {
    const IdxArray a = parse_idx(bytes.data(), bytes.size(), "f.idx");
    CHECK(a.dims == std::vector<uint32_t>{3, 4, 5});
    REQUIRE(a.data.size() == 60);
    CHECK(a.data[0] == 7);
    CHECK(a.data[59] == 66);
  }
}

TEST_CASE("IDX defects are refused naming the file and the defect", "[train][idx]") {
  const std::vector<uint8_t> raw = idx_bytes({100, 28}, 1);
  std::vector<uint8_t> z = gzip(raw);
  CHECK(idx_error({}) == "f.idx: is empty");
  CHECK_THAT(idx_error({raw.begin(), raw.end() - 1}), Catch::StartsWith("f.idx: is truncated: the data"));
  CHECK_THAT(idx_error({z.begin(), z.begin() + static_cast<ptrdiff_t>(z.size() / 2)}),
             Catch::StartsWith("f.idx: is truncated"));
  CHECK_THAT(idx_error({z.begin(), z.end() - 4}), Catch::StartsWith("f.idx: is truncated"));
  std::vector<uint8_t> corrupt = z;
  corrupt[z.size() - 6] ^= 0xff;  // the CRC-32 of the trailer
  CHECK_THAT(idx_error(corrupt), Catch::StartsWith("f.idx: is not valid gzip"));
  std::vector<uint8_t> longer = raw;
  longer.push_back(0);
  CHECK_THAT(idx_error(longer), Catch::Contains("1 bytes follow the data"));
  CHECK_THAT(idx_error(gzip(longer)), Catch::Contains("more data than the header declares"));
  std::vector<uint8_t> magic = raw;
  magic[0] = 1;
  CHECK_THAT(idx_error(magic), Catch::Contains("not an IDX file"));
  magic = raw;
  magic[2] = 0x0d;  // float
  CHECK_THAT(idx_error(magic), Catch::Contains("type 13"));
  magic = raw;
  magic[3] = 0;
  CHECK_THAT(idx_error(magic), Catch::Contains("declares 0 dimensions"));
  CHECK_THAT(idx_error(idx_bytes({100, 28}, 0), 1000), Catch::Contains("more than 1000 bytes"));
  std::vector<uint8_t> zero = idx_bytes({1, 1}, 0);
  zero[7] = 0;  // dimension 0 is 0
  CHECK_THAT(idx_error(zero), Catch::Contains("dimension 0 is 0"));
}

namespace {

Checkpoint sample_checkpoint() {
  Checkpoint c;
  c.model = "lenet5";
  c.dtype = "f32";
  c.algorithm = "onebit";
  c.ranks = 2;
  c.batch = 64;
  c.seed = 3;
  c.step = 17;
  c.min_compress_bytes = 16384;
  c.parameters.push_back({"fc.weight", {1.5f, -2.0f, 3.25f}, {0.5f, 0.25f, -1.0f}});
  c.parameters.push_back({"fc.bias", {0.0f}, {1.0f}});
  c.bucket_states = {{{1, 2, 3}, {}}, {{4, 5}, {6}}};
  return c;
}

std::string checkpoint_error(const std::vector<uint8_t> &b) {
  try {
    parse_checkpoint(b.data(), b.size(), "c.ckpt");
  } catch (const CheckpointError &e) {
    return e.what();
  }
  return "accepted";
}

// Rewrites the trailing FNV-1a so that a forged body passes the checksum.
void reseal(std::vector<uint8_t> &b) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i + 8 < b.size(); ++i) h = (h ^ b[i]) * 1099511628211ull;
  std::memcpy(b.data() + b.size() - 8, &h, 8);
}

}  // namespace

TEST_CASE("checkpoints round trip", "[train][checkpoint]") {
  const Checkpoint c = sample_checkpoint();
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint d = parse_checkpoint(bytes.data(), bytes.size(), "c.ckpt");
  CHECK(d.model == c.model);
  CHECK(d.algorithm == c.algorithm);
  CHECK(d.ranks == 2);
  CHECK(d.step == 17);
  REQUIRE(d.parameters.size() == 2);
  CHECK(d.parameters[0].value == c.parameters[0].value);
  CHECK(d.parameters[0].momentum == c.parameters[0].momentum);
  CHECK(d.bucket_states == c.bucket_states);
  CHECK_FALSE(d.momentum_correction);
  CHECK(d.min_compress_bytes == 16384);
  CHECK(d.rank_momenta.empty());
}

TEST_CASE("checkpoints with momentum correction keep each rank's momentum",
          "[train][checkpoint]") {
  Checkpoint c = sample_checkpoint();
  c.momentum_correction = true;
  for (CheckpointTensor &t : c.parameters) t.momentum.clear();
  c.rank_momenta = {{{0.5f, 0.25f, -1.0f}, {1.0f}}, {{-0.5f, 2.0f, 4.0f}, {-3.0f}}};
  const std::vector<uint8_t> bytes = serialize_checkpoint(c);
  const Checkpoint d = parse_checkpoint(bytes.data(), bytes.size(), "c.ckpt");
  CHECK(d.momentum_correction);
  CHECK(d.parameters[0].value == c.parameters[0].value);
  CHECK(d.parameters[0].momentum.empty());
  CHECK(d.rank_momenta == c.rank_momenta);
  CHECK(d.bucket_states == c.bucket_states);
  // Cut inside rank 1's momenta: the message names the rank and the tensor.
  std::vector<uint8_t> b(bytes.begin(), bytes.end() - 8 - 4);
  b.insert(b.end(), 8, 0);
  reseal(b);
  CHECK_THAT(checkpoint_error(b), Catch::Contains("rank 1's momentum of fc.bias"));
  // A flag other than 0 or 1.
  b = bytes;
  b[12 + (4 + 6) + (4 + 3) + (4 + 6) + 4 + 4] = 2;
  reseal(b);
  CHECK_THAT(checkpoint_error(b), Catch::Contains("momentum_correction is 2; 0 or 1"));
}

TEST_CASE("checkpoint defects are refused naming the file", "[train][checkpoint]") {
  const std::vector<uint8_t> good = serialize_checkpoint(sample_checkpoint());
  CHECK_THAT(checkpoint_error({good.begin(), good.begin() + 5}),
             Catch::StartsWith("c.ckpt: is truncated: the magic number"));
  std::vector<uint8_t> b = good;
  b[0] = 'X';
  CHECK_THAT(checkpoint_error(b), Catch::Contains("not a dlk-train checkpoint"));
  b = good;
  b[40] ^= 1;
  CHECK_THAT(checkpoint_error(b), Catch::Contains("is corrupt: its checksum"));
  CHECK_THAT(checkpoint_error({good.begin(), good.end() - 1}), Catch::Contains("is corrupt"));
  b = good;
  b[8] = 2;  // version 2: before --min-compress-bytes
  CHECK_THAT(checkpoint_error(b),
             Catch::Contains("format version 2; this dlk-train reads version 3"));
  // A forged parameter size with a valid checksum: refused before allocating.
  b = good;
  const size_t count_at = 12 + (4 + 6) + (4 + 3) + (4 + 6) + 4 + 4 + 4 + 8 + 8 + 8 + 8 + 4 + (4 + 9);
  uint64_t huge = uint64_t{1} << 60;
  std::memcpy(b.data() + count_at, &huge, 8);
  reseal(b);
  CHECK_THAT(checkpoint_error(b), Catch::Contains("parameter fc.weight declares 1152921504606846976"));
  b = good;
  b.insert(b.end() - 8, 0);
  reseal(b);
  CHECK_THAT(checkpoint_error(b), Catch::Contains("1 bytes follow"));
}
