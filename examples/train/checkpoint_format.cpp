#include "checkpoint_format.hpp"

#include <cstring>

namespace dlk_train {

namespace {

constexpr char kMagic[8] = {'D', 'L', 'K', 'T', 'R', 'A', 'I', 'N'};
constexpr uint32_t kVersion = 3;
constexpr uint32_t kMaxString = 256;

uint64_t fnv1a(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

class Writer {
 public:
  template <class T>
  void put(const T &v) {
    const auto *p = reinterpret_cast<const uint8_t *>(&v);
    out.insert(out.end(), p, p + sizeof v);
  }
  void bytes(const void *p, size_t n) {
    const auto *b = static_cast<const uint8_t *>(p);
    out.insert(out.end(), b, b + n);
  }
  void string(const std::string &s) {
    put(static_cast<uint32_t>(s.size()));
    bytes(s.data(), s.size());
  }
  void floats(const std::vector<float> &v) { bytes(v.data(), v.size() * sizeof(float)); }
  std::vector<uint8_t> out;
};

class Reader {
 public:
  Reader(const uint8_t *p, size_t n, const std::string &name) : p_(p), n_(n), name_(name) {}
  [[noreturn]] void fail(const std::string &what) const {
    throw CheckpointError(name_ + ": " + what + " (at byte " + std::to_string(pos_) + ")");
  }
  size_t left() const { return n_ - pos_; }
  void bytes(void *dst, size_t n, const char *what) {
    if (left() < n)
      fail(std::string("is truncated: ") + what + " needs " + std::to_string(n) + " bytes, " +
           std::to_string(left()) + " are left");
    if (n == 0) return;  // dst may be an empty vector's NULL
    std::memcpy(dst, p_ + pos_, n);
    pos_ += n;
  }
  template <class T>
  T get(const char *what) {
    T v;
    bytes(&v, sizeof v, what);
    return v;
  }
  std::string string(const char *what) {
    const uint32_t n = get<uint32_t>(what);
    if (n > kMaxString)
      fail(std::string(what) + " is " + std::to_string(n) + " bytes long; at most " +
           std::to_string(kMaxString));
    std::string s(n, '\0');
    bytes(s.data(), n, what);
    return s;
  }
  // count elements of `size` bytes, checked against what is left before allocating.
  void check_fits(uint64_t count, size_t size, const std::string &what) {
    if (count > left() / size)
      fail("is truncated: " + what + " declares " + std::to_string(count) +
           " elements, more than the " + std::to_string(left()) + " bytes left hold");
  }
  std::vector<float> floats(uint64_t count, const std::string &what) {
    check_fits(count, sizeof(float), what);
    std::vector<float> v(static_cast<size_t>(count));
    bytes(v.data(), v.size() * sizeof(float), what.c_str());
    return v;
  }
  size_t pos() const { return pos_; }

 private:
  const uint8_t *p_;
  size_t n_, pos_ = 0;
  std::string name_;
};

}  // namespace

std::vector<uint8_t> serialize_checkpoint(const Checkpoint &c) {
  Writer w;
  w.bytes(kMagic, sizeof kMagic);
  w.put(kVersion);
  w.string(c.model);
  w.string(c.dtype);
  w.string(c.algorithm);
  w.put(c.ranks);
  w.put(static_cast<uint32_t>(c.error_feedback));
  w.put(static_cast<uint32_t>(c.momentum_correction));
  w.put(c.min_compress_bytes);
  w.put(c.batch);
  w.put(c.seed);
  w.put(c.step);
  w.put(static_cast<uint32_t>(c.parameters.size()));
  for (const CheckpointTensor &t : c.parameters) {
    w.string(t.name);
    w.put(static_cast<uint64_t>(t.value.size()));
    w.floats(t.value);
    if (!c.momentum_correction) w.floats(t.momentum);
  }
  for (size_t rank = 0; rank < c.bucket_states.size(); ++rank) {
    w.put(static_cast<uint32_t>(c.bucket_states[rank].size()));
    for (const auto &state : c.bucket_states[rank]) {
      w.put(static_cast<uint64_t>(state.size()));
      w.bytes(state.data(), state.size());
    }
    if (c.momentum_correction)
      for (const std::vector<float> &m : c.rank_momenta.at(rank)) w.floats(m);
  }
  w.put(fnv1a(w.out.data(), w.out.size()));
  return std::move(w.out);
}

Checkpoint parse_checkpoint(const uint8_t *bytes, size_t size, const std::string &name) {
  Reader r(bytes, size, name);
  char magic[sizeof kMagic];
  r.bytes(magic, sizeof magic, "the magic number");
  if (std::memcmp(magic, kMagic, sizeof kMagic) != 0)
    r.fail("is not a dlk-train checkpoint (no \"DLKTRAIN\" magic number)");
  const uint32_t version = r.get<uint32_t>("the version");
  if (version != kVersion)
    r.fail("has format version " + std::to_string(version) + "; this dlk-train reads version " +
           std::to_string(kVersion));
  if (size < sizeof(uint64_t) + r.pos()) r.fail("is truncated: no checksum");
  uint64_t stored;
  std::memcpy(&stored, bytes + size - sizeof stored, sizeof stored);
  if (stored != fnv1a(bytes, size - sizeof stored))
    r.fail("is corrupt: its checksum does not match its contents");
  Reader body(bytes, size - sizeof stored, name);  // the checksum is not content
  body.bytes(magic, sizeof magic, "the magic number");
  body.get<uint32_t>("the version");

  Checkpoint c;
  c.model = body.string("the model name");
  c.dtype = body.string("the dtype");
  c.algorithm = body.string("the algorithm");
  c.ranks = body.get<uint32_t>("the rank count");
  if (c.ranks == 0) body.fail("declares 0 ranks");
  const uint32_t error_feedback = body.get<uint32_t>("error_feedback");
  if (error_feedback > 1) body.fail("error_feedback is " + std::to_string(error_feedback) + "; 0 or 1");
  c.error_feedback = error_feedback == 1;
  const uint32_t correction = body.get<uint32_t>("momentum_correction");
  if (correction > 1)
    body.fail("momentum_correction is " + std::to_string(correction) + "; 0 or 1");
  c.momentum_correction = correction == 1;
  c.min_compress_bytes = body.get<uint64_t>("min_compress_bytes");
  c.batch = body.get<uint64_t>("the batch");
  c.seed = body.get<uint64_t>("the seed");
  c.step = body.get<uint64_t>("the step");
  const uint32_t parameters = body.get<uint32_t>("the parameter count");
  body.check_fits(parameters, 4 + 8, "the parameter list");  // name length, count
  for (uint32_t i = 0; i < parameters; ++i) {
    CheckpointTensor t;
    t.name = body.string("a parameter name");
    const uint64_t count = body.get<uint64_t>("a parameter size");
    t.value = body.floats(count, "parameter " + t.name);
    if (!c.momentum_correction) t.momentum = body.floats(count, "the momentum of " + t.name);
    c.parameters.push_back(std::move(t));
  }
  body.check_fits(c.ranks, 4, "the rank list");
  for (uint32_t rank = 0; rank < c.ranks; ++rank) {
    const uint32_t buckets = body.get<uint32_t>("a bucket count");
    body.check_fits(buckets, 8, "the bucket list of rank " + std::to_string(rank));
    std::vector<std::vector<uint8_t>> states;
    for (uint32_t k = 0; k < buckets; ++k) {
      const uint64_t n = body.get<uint64_t>("a bucket state size");
      body.check_fits(n, 1, "the state of bucket " + std::to_string(k));
      std::vector<uint8_t> state(static_cast<size_t>(n));
      body.bytes(state.data(), state.size(), "a bucket state");
      states.push_back(std::move(state));
    }
    c.bucket_states.push_back(std::move(states));
    if (!c.momentum_correction) continue;
    std::vector<std::vector<float>> momenta;
    for (const CheckpointTensor &t : c.parameters)
      momenta.push_back(body.floats(t.value.size(),
                                    "rank " + std::to_string(rank) + "'s momentum of " + t.name));
    c.rank_momenta.push_back(std::move(momenta));
  }
  if (body.left() != 0)
    body.fail(std::to_string(body.left()) + " bytes follow the last rank's bucket states");
  return c;
}

}  // namespace dlk_train
