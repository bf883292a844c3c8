#include "report.hpp"

#include <unistd.h>

#include <cstdlib>

namespace dlk_train {

void describe_machine(RunContext &run) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  run.hostname = host;
  run.cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  double load[1] = {0};
  run.load_1min = getloadavg(load, 1) == 1 ? load[0] : -1.0;
}

void print_table_header(std::FILE *out, const RunContext &run) {
  const Options &o = run.options;
  const std::string dense =
      o.min_compress_bytes > 0
          ? " (gradients under " + std::to_string(o.min_compress_bytes) + " B: native)"
          : "";
  std::fprintf(out,
               "# dlk-train %s: %d rank(s) x %lld samples (global batch %lld), %s %s, %d "
               "thread(s), algorithm %s%s%s, lr %g, momentum %g%s, seed %llu\n",
               run.model.name.c_str(), run.ranks, static_cast<long long>(run.local_batch),
               static_cast<long long>(o.batch), run.info.backend, o.dtype.c_str(),
               run.info.num_threads, o.algorithm.c_str(), dense.c_str(),
               o.error_feedback ? "" : " (no error feedback)", static_cast<double>(o.lr),
               static_cast<double>(o.momentum),
               o.momentum_correction ? " (kept per rank: momentum correction)" : "",
               static_cast<unsigned long long>(o.seed));
  std::fprintf(out, "%5s %6s %8s %8s %8s %10s %8s %8s %11s%s\n", "epoch", "steps", "loss",
               "test_acc", "step_ms", "compute_ms", "comm_ms", "codec_ms", "wire_KiB",
               run.simulated ? "   sim_ms" : "");
  std::fflush(out);
}

void print_table_row(std::FILE *out, const RunContext &run, const EpochRow &r) {
  std::fprintf(out, "%5d %6lld %8.4f %7.2f%% %8.3f %10.3f %8.3f %8.3f %11.1f", r.epoch,
               static_cast<long long>(r.steps), r.train_loss, 100.0 * r.test_accuracy,
               r.step_seconds * 1e3, r.compute_seconds * 1e3, r.exposed_comm_seconds * 1e3,
               r.codec_seconds * 1e3, r.wire_bytes / 1024.0);
  if (run.simulated) std::fprintf(out, " %8.3f", r.sim_seconds * 1e3);
  std::fprintf(out, "\n");
  std::fflush(out);
}

nlohmann::ordered_json run_json(const RunContext &run, const RunRecord &record) {
  const Options &o = run.options;
  nlohmann::ordered_json j;
  j["schema"] = "dlk-train/run/1";
  j["program"] = "dlk-train";
  j["machine"] = {{"cpu", run.info.device},
                  {"hostname", run.hostname},
                  {"cpus", run.cpus},
                  {"load_1min", run.load_1min}};
  j["config"] = {{"model", run.model.name},
                 {"parameters", parameter_count(run.model)},
                 {"ranks", run.ranks},
                 {"global_batch", o.batch},
                 {"local_batch", run.local_batch},
                 {"lr", o.lr},
                 {"lr_warmup_steps", o.lr_warmup_steps},
                 {"momentum", o.momentum},
                 {"seed", o.seed},
                 {"epochs", o.epochs},
                 {"steps", o.steps},
                 {"steps_per_epoch", run.steps_per_epoch},
                 {"train_images", run.train_images},
                 {"test_images", run.test_images},
                 {"algorithm", o.algorithm},
                 {"error_feedback", o.error_feedback},
                 {"momentum_correction", o.momentum_correction},
                 {"min_compress_bytes", o.min_compress_bytes},
                 {"bucket_bytes", record.bucket_bytes},
                 {"buckets", record.buckets},
                 {"backend", run.info.backend},
                 {"device", run.info.device},
                 {"isa", run.info.isa},
                 {"threads", run.info.num_threads},
                 {"dtype", o.dtype}};
  nlohmann::ordered_json epochs = nlohmann::ordered_json::array();
  for (const EpochRow &r : record.epochs) {
    nlohmann::ordered_json e = {{"epoch", r.epoch},
                                {"steps", r.steps},
                                {"train_loss", r.train_loss},
                                {"test_accuracy", r.test_accuracy},
                                {"step_seconds", r.step_seconds},
                                {"step_seconds_median", r.step_seconds_median},
                                {"compute_seconds", r.compute_seconds},
                                {"exposed_comm_seconds", r.exposed_comm_seconds},
                                {"codec_seconds", r.codec_seconds},
                                {"wire_bytes_per_step", r.wire_bytes}};
    if (run.simulated) e["sim_seconds"] = r.sim_seconds;
    e["train_seconds"] = r.train_seconds;
    e["wall_seconds"] = r.wall_seconds;
    e["weights_checksum"] = r.weights_checksum;
    epochs.push_back(std::move(e));
  }
  j["epochs"] = std::move(epochs);
  j["final"] = {{"first_step", record.first_step},
                {"last_step", record.last_step},
                {"train_loss", record.epochs.empty() ? 0.0 : record.epochs.back().train_loss},
                {"test_accuracy",
                 record.epochs.empty() ? 0.0 : record.epochs.back().test_accuracy},
                {"weights_checksum",
                 record.epochs.empty() ? "" : record.epochs.back().weights_checksum},
                {"wall_seconds", record.wall_seconds}};
  nlohmann::ordered_json evals = nlohmann::ordered_json::array();
  for (const Evaluation &e : record.evals)
    evals.push_back({{"step", e.step}, {"train_seconds", e.train_seconds},
                     {"test_accuracy", e.test_accuracy}});
  j["evals"] = std::move(evals);
  if (o.target_accuracy > 0) {
    const Evaluation *r = record.reached();
    j["time_to_accuracy"] = {{"target", o.target_accuracy / 100.0}, {"reached", nullptr}};
    if (r)
      j["time_to_accuracy"]["reached"] = {
          {"step", r->step}, {"train_seconds", r->train_seconds}, {"test_accuracy", r->test_accuracy}};
  }
  nlohmann::ordered_json timeline = nlohmann::ordered_json::array();
  for (const StepTimeline &t : record.timeline) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerSpan &l : t.layers)
      layers.push_back({{"name", l.name},
                        {"forward_start", l.forward_start},
                        {"forward_end", l.forward_end},
                        {"backward_start", l.backward_start},
                        {"backward_end", l.backward_end}});
    nlohmann::ordered_json buckets = nlohmann::ordered_json::array();
    for (const BucketSpan &b : t.buckets)
      buckets.push_back({{"index", b.index},
                         {"start", b.start},
                         {"end", b.end},
                         {"logical_bytes", b.logical_bytes},
                         {"wire_bytes_sent", b.wire_bytes_sent},
                         {"wire_bytes_received", b.wire_bytes_received},
                         {"encode_seconds", b.encode_seconds},
                         {"decode_seconds", b.decode_seconds},
                         {"algorithm", b.algorithm}});
    timeline.push_back({{"step", t.step},
                        {"step_seconds", t.step_seconds},
                        {"wait_start", t.wait_start},
                        {"wait_end", t.wait_end},
                        {"update_end", t.update_end},
                        {"layers", std::move(layers)},
                        {"buckets", std::move(buckets)}});
  }
  j["timeline"] = std::move(timeline);
  return j;
}

}  // namespace dlk_train
