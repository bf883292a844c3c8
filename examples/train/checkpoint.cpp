#include "checkpoint.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

namespace dlk_train {

namespace {

// One rank's bucket states as bytes: u64 size, then the state, for each bucket.
std::vector<uint8_t> flatten_states(const std::vector<std::vector<uint8_t>> &states) {
  std::vector<uint8_t> out;
  for (const auto &s : states) {
    const uint64_t n = s.size();
    const auto *p = reinterpret_cast<const uint8_t *>(&n);
    out.insert(out.end(), p, p + sizeof n);
    out.insert(out.end(), s.begin(), s.end());
  }
  return out;
}

std::vector<std::vector<uint8_t>> unflatten_states(const uint8_t *p, size_t n) {
  std::vector<std::vector<uint8_t>> states;
  size_t pos = 0;
  while (pos < n) {  // written by flatten_states in this process's job: trusted
    uint64_t size;
    std::memcpy(&size, p + pos, sizeof size);
    pos += sizeof size;
    states.emplace_back(p + pos, p + pos + size);
    pos += static_cast<size_t>(size);
  }
  return states;
}

}  // namespace

void save_checkpoint(const std::string &path, Checkpoint c, MPI_Comm comm) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  const std::vector<uint8_t> mine = flatten_states(c.bucket_states.at(0));
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
    for (int r = 0; r < ranks; ++r)
      c.bucket_states.push_back(unflatten_states(all.data() + offsets[static_cast<size_t>(r)],
                                                 static_cast<size_t>(sizes[static_cast<size_t>(r)])));
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
