// Writes the seed corpus of the libdlk_comm fuzzers (formats in each target's
// comment): states saved by one-rank buffers of every algorithm after a few
// all-reduces, real compressed messages of 1 to 3 ranks with their sizes, and
// agreements of ranks that agree and that differ. Runs as an MPI singleton (no
// mpiexec). From the source tree, to refresh tests/fuzz/corpus/comm_*:
//   build/fuzz/tests/fuzz/make_comm_fuzz_seeds tests/fuzz/corpus
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "comm/chunk_plan.hpp"
#include "dlk/dlk_comm.hpp"
#include "dlk/dlk_compress.hpp"

namespace {

std::vector<float> wave(size_t n, int phase) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = std::sin(0.37f * static_cast<float>(i) + static_cast<float>(phase)) * (1 + i % 5);
  return x;
}

void write(const std::string &path, const std::vector<uint8_t> &bytes) {
  if (FILE *f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  } else {
    std::perror(path.c_str());
  }
}

template <class T>
void append(std::vector<uint8_t> &out, T value) {
  const auto *p = reinterpret_cast<const uint8_t *>(&value);
  out.insert(out.end(), p, p + sizeof value);
}

void states(const std::string &dir) {
  dlk::comm::Communicator comm;
  int seed = 0;
  for (const dlk_comm_algorithm algorithm :
       {DLK_COMM_ALGO_AUTO, DLK_COMM_ALGO_NATIVE, DLK_COMM_ALGO_RING, DLK_COMM_ALGO_ONEBIT,
        DLK_COMM_ALGO_TOPK, DLK_COMM_ALGO_INT8, DLK_COMM_ALGO_INT4, DLK_COMM_ALGO_FP16,
        DLK_COMM_ALGO_BF16})
    for (const uint64_t count : {uint64_t(0), uint64_t(1), uint64_t(17), uint64_t(100)}) {
      dlk_comm_config config = dlk::comm::config(algorithm);
      config.warmup_steps = 0;
      config.min_compress_bytes = 0;
      dlk::comm::Buffer buffer(comm, count, config);
      for (int step = 0; step < 2; ++step) {
        std::vector<float> x = wave(count, step);
        buffer.allreduce(x.data());
      }
      write(dir + "/seed_" + std::to_string(seed++), buffer.save_state());
    }
}

// The codecs in fuzz_comm_messages's order.
const dlk_codec_algorithm kCodecs[] = {DLK_CODEC_ONEBIT, DLK_CODEC_TOPK, DLK_CODEC_INT8,
                                       DLK_CODEC_INT4,   DLK_CODEC_FP16, DLK_CODEC_BF16};

void messages(const std::string &dir) {
  int seed = 0;
  // mode: bit 0 overwrite, bit 2 chunks of 1024 floats, bits 3-7 the chunk.
  struct Shape {
    uint16_t count;
    uint8_t mode;
  };
  for (uint8_t codec = 0; codec < 6; ++codec)
    for (const uint8_t ranks : {1, 3})
      for (const Shape shape : {Shape{1, 0}, Shape{100, 1}, Shape{3000, 1 | 4 | (2 << 3)}}) {
        dlk_codec_params params = dlk::compress::params(kCodecs[codec]);
        if (shape.mode & 4) params.topk_fraction = 1.0;  // as the fuzzer does
        const uint64_t chunk_bytes =
            (shape.mode & 4) ? dlk::comm::kMinChunkBytes : dlk::comm::kMaxChunkBytes;
        const auto chunks =
            dlk::comm::plan_chunks("seeds", params, shape.count, {0, shape.count}, chunk_bytes);
        const dlk::comm::Chunk &chunk = chunks[(shape.mode >> 3) % chunks.size()];
        std::vector<uint8_t> input{static_cast<uint8_t>(ranks - 1), codec, shape.mode};
        append(input, shape.count);
        std::vector<uint8_t> gathered;
        for (int r = 0; r < ranks; ++r) {
          const std::vector<float> x = wave(shape.count, r);
          std::vector<uint8_t> m = dlk::compress::encode(chunk.params, x.data() + chunk.begin,
                                                         nullptr, chunk.length);
          append<uint64_t>(input, m.size());
          m.resize(chunk.capacity);  // each message in a slot of the chunk's capacity
          gathered.insert(gathered.end(), m.begin(), m.end());
        }
        input.insert(input.end(), gathered.begin(), gathered.end());
        write(dir + "/seed_" + std::to_string(seed++), input);
      }
}

void agreements(const std::string &dir) {
  int seed = 0;
  for (const uint8_t ranks : {1, 2, 4})
    for (const bool agree : {true, false}) {
      const uint8_t fields = 12;  // what an all-reduce exchanges
      std::vector<uint8_t> input{static_cast<uint8_t>(ranks - 1), fields - 1};
      for (uint8_t i = 0; i < fields; ++i) input.push_back(i == 1);  // algorithm second
      for (int r = 0; r < ranks; ++r)
        for (int64_t i = 0; i < fields; ++i) append<int64_t>(input, agree ? i : i + (r == 1));
      write(dir + "/seed_" + std::to_string(seed++), input);
    }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  const std::string root = argv[1];
  states(root + "/comm_state");
  messages(root + "/comm_messages");
  agreements(root + "/comm_agreement");
  return 0;
}
