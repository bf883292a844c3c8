// dlk-train's command line (CLI11), with DLK_BACKEND and DLK_COMM_ALGO as the
// defaults of --backend and --algorithm.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace dlk_train {

struct Options {
  std::string model = "lenet5";
  bool describe = false;  // print the model as JSON and exit
  std::string data_dir;   // "" : Debian's dataset-fashion-mnist
  int epochs = 1;
  int64_t steps = 0;         // 0: every step of every epoch
  int64_t train_subset = 0;  // 0: the whole training set
  int64_t test_subset = 0;
  int threads = 0;  // 0: dlk's default
  uint64_t seed = 1;
  int64_t batch = 64;  // global, over all ranks
  float lr = 0.05f;
  float momentum = 0.9f;
  std::string algorithm;  // "" : DLK_COMM_ALGO, else native
  bool error_feedback = true;
  // Each rank keeps its own momentum of its gradient and all-reduces that
  // (Deep Gradient Compression's momentum correction), not the gradient;
  // parse_options sets it from the algorithm unless a flag says otherwise.
  bool momentum_correction = false;
  double topk_fraction = 0.01;
  uint32_t warmup_steps = 0;  // the first steps all-reduce with native (1-bit Adam's warm-up)
  uint32_t lr_warmup_steps = 0;  // the learning rate rises linearly over the first steps
  uint32_t block_size = 0;  // onebit, int8, int4: elements per codec block; 0: the codec's default
  // Compressed algorithms: gradients smaller than this many bytes are all-reduced
  // uncompressed (native), in buckets of their own; 0: none. parse_options sets
  // it from the algorithm unless given, and to 0 for native, ring and ps, which
  // compress nothing.
  uint64_t min_compress_bytes = 0;
  double bucket_mb = 0;  // 0: auto_bucket_bytes (trainer.cpp)
  std::string backend;  // "" : DLK_BACKEND, else cpu
  std::string dtype = "f32";
  std::string save, resume;
  std::string json;         // "" none, "-" stdout, else a file
  int timeline_steps = 3;   // steps whose per-layer timeline --json records
  int64_t eval_every = 0;        // also test every N steps (time to accuracy); 0: per epoch only
  double target_accuracy = 0;    // percent: stop once the test accuracy reaches it; 0: never
  bool quiet = false;
  int64_t trace_norms = 0;  // every N steps rank 0 prints the loss and each parameter's norms; 0: never
  // Self-test of the cross-rank check: this rank nudges one weight after its
  // first step (-1: none), so the epoch's checksum must stop the run.
  int inject_divergence = -1;
  // Test of the cuda path: stage every operand through dlk_malloc'd memory.
  bool stage_operands = false;
};

// Whether --algorithm NAME keeps the momentum per rank when neither
// --momentum-correction nor --no-momentum-correction is given.
bool momentum_correction_by_default(const std::string &algorithm);

// Parses argv; returns the exit code when the program should stop now (--help,
// or an error already printed), nothing when it should run.
std::optional<int> parse_options(int argc, char **argv, Options &options);

}  // namespace dlk_train
