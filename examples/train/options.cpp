#include "options.hpp"

#include <cstdlib>

#include <CLI/CLI.hpp>

#include "model_spec.hpp"

namespace dlk_train {

// onebit and topk leave most of each step's gradient to error feedback; passed
// through the global momentum, that delayed part moves the weights up to
// 1 / (1 - momentum) times before the payback cancels it. With the momentum
// kept per rank and compressed (DGC), it reaches the weights once: LeNet-5
// ends closer to native with it in every measured cell (docs/training.md,
// "Momentum correction"). The other algorithms' error is too small to matter.
bool momentum_correction_by_default(const std::string &algorithm) {
  return algorithm == "onebit" || algorithm == "topk";
}

namespace {

// onebit and topk compress LeNet-5's small layers as hard as its large ones
// (topk: 1 % of a bucket a step; onebit: a sign per element, scaled by the RMS of
// blocks shared with other tensors) although they carry little wire. Sent dense (BytePS's
// min_compress_bytes), the gradients under 16 KiB (every bias, conv1, conv2, fc3:
// 14.5 KB a step) bring LeNet-5's training loss to 2-4 % above native's (from
// 10-13 %) and topk 0.8 points closer to native on the mean of 8 seeds; biases
// and conv1 alone (1 KiB) did not help (docs/training.md, "Small gradients
// uncompressed"). The other algorithms' error is too small to matter.
uint64_t min_compress_bytes_by_default(const std::string &algorithm) {
  return algorithm == "onebit" || algorithm == "topk" ? 16384 : 0;
}

// Everything but native, ring and ps (auto may choose a compressed algorithm).
bool compresses(const std::string &algorithm) {
  return algorithm != "native" && algorithm != "ring" && algorithm != "ps";
}

}  // namespace

std::optional<int> parse_options(int argc, char **argv, Options &o) {
  if (const char *env = std::getenv("DLK_COMM_ALGO")) o.algorithm = env;
  if (const char *env = std::getenv("DLK_BACKEND")) o.backend = env;
  CLI::App app{"dlk-train: data-parallel training of CNNs on Fashion-MNIST with dlk ops and "
               "libdlk_comm (docs/train.md)"};
  // A later option wins over an earlier one (scripts append to a base command line).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--model", o.model, "lenet5, vgg_small or wide")
      ->check(CLI::IsMember(model_names()));
  app.add_flag("--describe", o.describe, "Print the model's layers and gradients as JSON, exit");
  app.add_option("--data", o.data_dir,
                 "Directory of the Fashion-MNIST IDX files (.gz or not); default: "
                 "/usr/share/datasets/fashion-mnist");
  app.add_option("--epochs", o.epochs, "Epochs")->check(CLI::PositiveNumber);
  app.add_option("--steps", o.steps, "Stop after this many steps in all (0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--train-subset", o.train_subset, "Train on the first N images (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--test-subset", o.test_subset, "Test on the first N images (0: all)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--threads", o.threads, "dlk threads per rank (0: dlk's default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--seed", o.seed, "Seed of the weights and of the data order");
  app.add_option("--batch", o.batch, "Global batch, split over the ranks")
      ->check(CLI::PositiveNumber);
  app.add_option("--lr", o.lr, "Learning rate")->check(CLI::PositiveNumber);
  app.add_option("--momentum", o.momentum, "SGD momentum")->check(CLI::Range(0.0, 1.0));
  app.add_option("--algorithm", o.algorithm,
                 "All-reduce: native, ring, ps, onebit, topk, int8, int4, fp16, bf16, auto "
                 "(default: DLK_COMM_ALGO, else native)");
  bool no_error_feedback = false;
  app.add_flag("--no-error-feedback", no_error_feedback,
               "Drop the compression error every step (zero the all-reduce residuals)");
  bool correction = false;
  CLI::Option *correction_option = app.add_flag(
      "--momentum-correction,!--no-momentum-correction", correction,
      "Each rank all-reduces its own momentum, u = momentum * u + g, and the update is "
      "w -= lr * sum(u) (Deep Gradient Compression); error feedback then carries what "
      "compression leaves out of u. Default: on for onebit and topk, off otherwise");
  app.add_option("--warmup-steps", o.warmup_steps,
                 "Compressed algorithms: all-reduce the first N steps uncompressed (native)");
  app.add_option("--lr-warmup-steps", o.lr_warmup_steps,
                 "The learning rate rises linearly from lr / N to lr over the first N steps "
                 "(every algorithm; 0: none)");
  app.add_option("--block-size", o.block_size,
                 "onebit, int8, int4: elements per codec block (multiple of 16; 0: the codec's "
                 "default, 1024, 256, 128)");
  CLI::Option *min_compress_option = app.add_option(
      "--min-compress-bytes", o.min_compress_bytes,
      "Compressed algorithms: all-reduce each gradient smaller than this many bytes "
      "uncompressed (native), in buckets of their own, as BytePS's BYTEPS_MIN_COMPRESS_BYTES "
      "(biases, small layers; 0: none). Default: 16384 for onebit and topk, 0 otherwise");
  app.add_option("--topk-fraction", o.topk_fraction, "topk: fraction of elements sent")
      ->check(CLI::Range(1e-6, 1.0));
  app.add_option("--bucket-mb", o.bucket_mb,
                 "Gradient bucket size in MiB (as DDP's bucket_cap_mb); 0: a quarter of the "
                 "model's gradients, from 64 KiB to 25 MiB, so that backward overlaps them")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--backend", o.backend, "cpu, fpga_sim, cuda (default: DLK_BACKEND, else cpu)");
  app.add_option("--dtype", o.dtype, "f32, or bf16 (bf16 conv/GEMM, f32 master weights)")
      ->check(CLI::IsMember({"f32", "bf16"}));
  app.add_option("--save", o.save, "Write a checkpoint here at the end");
  app.add_option("--resume", o.resume, "Start from this checkpoint");
  app.add_option("--json", o.json, "Write the run as JSON (dlk-train/run/1) to FILE, - for stdout");
  app.add_option("--timeline-steps", o.timeline_steps,
                 "Steps sampled for the per-layer timeline in --json")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--eval-every", o.eval_every,
                 "Also score the test set every N steps (time to accuracy)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--target-accuracy", o.target_accuracy,
                 "Stop once the test accuracy (%) reaches this (0: never)")
      ->check(CLI::Range(0.0, 100.0));
  app.add_flag("--quiet", o.quiet, "No progress line");
  app.add_option("--trace-norms", o.trace_norms,
                 "Every N steps rank 0 prints to stderr its batch's loss and, per parameter, the "
                 "L2 norms of the weights, of its momentum and of the gradient it applied (the "
                 "all-reduced gradient, or with the momentum correction the all-reduced momentum); "
                 "0: never")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--inject-divergence", o.inject_divergence,
                 "Test of the cross-rank check: this rank changes a weight after a step")
      ->group("");
  app.add_flag("--stage-operands", o.stage_operands,
               "Test of the cuda path: copy every operand through device memory")
      ->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    return app.exit(e);
  }
  o.error_feedback = !no_error_feedback;
  if (o.algorithm.empty()) o.algorithm = "native";
  o.momentum_correction = correction_option->count() > 0
                              ? correction
                              : momentum_correction_by_default(o.algorithm);
  if (o.backend.empty()) o.backend = "cpu";
  if (min_compress_option->count() == 0)
    o.min_compress_bytes = min_compress_bytes_by_default(o.algorithm);
  if (!compresses(o.algorithm)) o.min_compress_bytes = 0;
  return std::nullopt;
}

}  // namespace dlk_train
