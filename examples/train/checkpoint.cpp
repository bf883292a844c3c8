#include "checkpoint.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace dlk_train {

namespace {

// What differs by rank, as bytes: u32 bucket count, then each bucket's u64 size
// and state; u32 momentum count (0 without momentum correction), then each
// momentum's u64 count and floats.
template <class T>
void append(std::vector<uint8_t> &out, const T &v) {
  const auto *p = reinterpret_cast<const uint8_t *>(&v);
  out.insert(out.end(), p, p + sizeof v);
}

std::vector<uint8_t> flatten_rank(const std::vector<std::vector<uint8_t>> &states,
                                  const std::vector<std::vector<float>> &momenta) {
  std::vector<uint8_t> out;
  append(out, static_cast<uint32_t>(states.size()));
  for (const auto &s : states) {
    append(out, static_cast<uint64_t>(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  append(out, static_cast<uint32_t>(momenta.size()));
  for (const auto &m : momenta) {
    append(out, static_cast<uint64_t>(m.size()));
    const auto *p = reinterpret_cast<const uint8_t *>(m.data());
    out.insert(out.end(), p, p + m.size() * sizeof(float));
  }
  return out;
}

// Reads what flatten_rank wrote in this process's job: trusted.
class RankBytes {
 public:
  explicit RankBytes(const uint8_t *p) : p_(p) {}
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> v(p_, p_ + n);
    p_ += n;
    return v;
  }
  std::vector<float> floats(size_t n) {
    std::vector<float> v(n);
    if (n > 0) std::memcpy(v.data(), p_, n * sizeof(float));
    p_ += n * sizeof(float);
    return v;
  }

 private:
  const uint8_t *p_;
};

void unflatten_rank(const uint8_t *p, Checkpoint &c) {
  RankBytes in(p);
  auto &states = c.bucket_states.emplace_back();
  for (uint32_t k = in.get<uint32_t>(); k > 0; --k)
    states.push_back(in.bytes(static_cast<size_t>(in.get<uint64_t>())));
  const uint32_t momenta = in.get<uint32_t>();
  if (!c.momentum_correction) return;
  auto &mine = c.rank_momenta.emplace_back();
  for (uint32_t i = 0; i < momenta; ++i)
    mine.push_back(in.floats(static_cast<size_t>(in.get<uint64_t>())));
}

}  // namespace

void save_checkpoint(const std::string &path, Checkpoint c, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::vector<uint8_t> mine = flatten_rank(
      c.bucket_states.at(0),
      c.momentum_correction ? c.rank_momenta.at(0) : std::vector<std::vector<float>>{});
  const int my_size = static_cast<int>(mine.size());
  std::vector<int> sizes(static_cast<size_t>(ranks)), offsets(static_cast<size_t>(ranks));
  MPI_Gather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < ranks; ++r) {
    offsets[static_cast<size_t>(r)] = total;
    total += sizes[static_cast<size_t>(r)];
  }
  std::vector<uint8_t> all(rank == 0 ? static_cast<size_t>(total) : 0);
  MPI_Gatherv(mine.data(), my_size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
              0, comm);
  int ok = 1;
  std::string error;
  if (rank == 0) {
    c.bucket_states.clear();
    c.rank_momenta.clear();
    for (int r = 0; r < ranks; ++r) unflatten_rank(all.data() + offsets[static_cast<size_t>(r)], c);
    const std::vector<uint8_t> bytes = serialize_checkpoint(c);
    const std::string temporary = path + ".tmp";
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out || std::rename(temporary.c_str(), path.c_str()) != 0) {
      ok = 0;
      error = path + ": cannot be written (" + std::strerror(errno) + ")";
    }
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
  if (!ok) throw CheckpointError(rank == 0 ? error : path + ": rank 0 could not write it");
}

Checkpoint read_checkpoint(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CheckpointError(path + ": cannot be opened (" + std::strerror(errno) + ")");
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  return parse_checkpoint(bytes.data(), bytes.size(), path);
}

}  // namespace dlk_train
