#include "trainer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "checkpoint.hpp"
#include "loss.hpp"
#include "sgd.hpp"

namespace dlk_train {

namespace {

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

dlk_comm_config sync_config(const Options &o) {
  dlk_comm_config c = dlk::comm::config(dlk::comm::algorithm_from_name(o.algorithm));
  c.average = 0;  // the loss is already divided by the global batch
  c.topk_fraction = o.topk_fraction;
  c.seed = o.seed;
  c.block_size = o.block_size;
  c.warmup_steps = o.warmup_steps;
  return c;
}

// The gradients under --min-compress-bytes: summed by MPI, as native does.
dlk_comm_config dense_config() {
  dlk_comm_config c = dlk::comm::config(DLK_COMM_ALGO_NATIVE);
  c.average = 0;
  return c;
}

// --bucket-mb, or by default a quarter of the model's gradient bytes, from 64 KiB
// to 25 MiB (DDP's bucket_cap_mb): with one bucket (LeNet-5's 241 KB under 25 MiB)
// nothing is all-reduced until backward ends; with about four, the last layers'
// buckets travel while the first layers' backward runs (as DDP's 1 MiB first
// bucket does for models above 25 MiB). docs/training.md measures the difference.
uint64_t bucket_bytes(const Options &o, Network &network) {
  if (o.bucket_mb > 0) return static_cast<uint64_t>(o.bucket_mb * static_cast<double>(1 << 20));
  uint64_t bytes = 0;
  for (const auto &layer : network.layers())
    for (const Parameter *p : layer->parameters()) bytes += 4 * p->grad.size();
  return std::clamp<uint64_t>(bytes / 4, uint64_t(64) << 10, uint64_t(25) << 20);
}

int comm_rank(const dlk::comm::Communicator &c) { return c.rank(); }
int comm_size(const dlk::comm::Communicator &c) { return c.size(); }

uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const auto *b = static_cast<const uint8_t *>(p);
  for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

std::string hex(uint64_t v) {
  char s[17];
  std::snprintf(s, sizeof s, "%016llx", static_cast<unsigned long long>(v));
  return s;
}

}  // namespace

Trainer::Trainer(const Options &options, const ModelSpec &model, const Dataset &data,
                 const dlk::comm::Communicator &comm)
    : options_(options),
      model_(model),
      data_(data),
      mpi_(MPI_COMM_WORLD),
      rank_(comm_rank(comm)),
      ranks_(comm_size(comm)),
      local_batch_((options.batch * (rank_ + 1)) / ranks_ - (options.batch * rank_) / ranks_),
      shard_begin_((options.batch * rank_) / ranks_),
      ops_(options.backend, options.threads, options.stage_operands),
      network_(model, local_batch_ > 0 ? local_batch_ : 1,
               options.dtype == "bf16" ? Precision::bf16 : Precision::f32),
      bucket_bytes_(bucket_bytes(options, network_)),
      sync_(comm, sync_config(options), bucket_bytes_) {
  if (options.batch < ranks_)
    throw AgreedError("--batch " + std::to_string(options.batch) + " is smaller than the " +
                      std::to_string(ranks_) + " ranks: every rank needs a sample");
  steps_per_epoch_ = data.train.count / options.batch;
  if (steps_per_epoch_ == 0)
    throw AgreedError("the training set (" + std::to_string(data.train.count) +
                      " images) holds no whole batch of " + std::to_string(options.batch));
  if (options.dtype == "bf16" &&
      !ops_.supports(DLK_OP_CONV2D_BACKWARD_WEIGHTS, DLK_DTYPE_BF16, DLK_DTYPE_BF16, DLK_DTYPE_BF16))
    throw AgreedError(std::string("--dtype bf16: the ") + ops_.info().backend +
                      " backend has no bf16 convolution backward");
  // Gradients in the order backward produces them: last layer first. Those under
  // --min-compress-bytes go to a native synchronizer of their own: libdlk_comm's
  // min_compress_bytes judges a whole bucket, and a bias fused into a bucket with
  // a large weight would still be compressed.
  std::vector<Parameter *> backward_order;
  const auto &layers = network_.layers();
  for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    for (Parameter *p : (*it)->parameters()) backward_order.push_back(p);
  const auto dense = [&](const Parameter *p) {
    return 4 * p->grad.size() < options.min_compress_bytes;
  };
  if (std::any_of(backward_order.begin(), backward_order.end(), dense))
    dense_sync_ = std::make_unique<dlk::comm::Synchronizer>(comm, dense_config(), bucket_bytes_);
  for (Parameter *p : backward_order) {
    dlk::comm::Synchronizer &to = dense(p) ? *dense_sync_ : sync_;
    gradient_slot_[p] = {&to, to.add(p->grad.data(), p->grad.size())};
  }
  for (dlk::comm::Synchronizer *s : synchronizers()) {
    s->commit();
    for (uint32_t k = 0; k < s->bucket_count(); ++k) buckets_.push_back({s, k});
  }
  bucket_parameters_.resize(buckets_.size());
  for (Parameter *p : network_.parameters()) {
    const Slot &g = gradient_slot_.at(p);
    const size_t first = g.sync == &sync_ ? 0 : sync_.bucket_count();
    bucket_parameters_[first + g.sync->gradient_bucket(g.index)].push_back(p);
  }
  labels_.resize(static_cast<size_t>(local_batch_));
  dlogits_.resize(static_cast<size_t>(local_batch_ * model.classes));
  network_.init(options.seed);
  terminal_ = rank_ == 0 && !options.quiet && isatty(STDERR_FILENO);
  if (!options.resume.empty()) resume(options.resume);
}

std::vector<int32_t> Trainer::epoch_order(int64_t epoch) const {
  std::vector<int32_t> order(static_cast<size_t>(data_.train.count));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::mt19937_64 rng(options_.seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(epoch) + 1);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  return order;
}

Trainer::StepMeasure Trainer::train_step(int64_t step, const std::vector<int32_t> &order,
                                         bool sample, RunRecord &record) {
  const Clock::time_point start = Clock::now();
  const int64_t pixels = model_.input.elements();
  const int64_t first = (step % steps_per_epoch_) * options_.batch + shard_begin_;
  gather_batch(data_.train, order, first, local_batch_, pixels, network_.input(), labels_.data());

  const float *logits = network_.forward(ops_);
  const double loss = softmax_cross_entropy(logits, labels_.data(), local_batch_, model_.classes,
                                            1.0f / static_cast<float>(options_.batch),
                                            dlogits_.data());
  loss_sum_ += loss;
  // One rank has nothing to all-reduce: like PyTorch without DDP, it skips the synchronizer.
  const bool all_reduce = ranks_ > 1;
  const bool correction = options_.momentum_correction;
  network_.backward(ops_, dlogits_.data(), [&](Layer &l) {
    for (Parameter *p : l.parameters()) {
      if (correction) accumulate_local_momentum(*p, options_.momentum);
      if (all_reduce) {
        const Slot &g = gradient_slot_.at(p);
        g.sync->ready(g.index);
      }
    }
  });
  const float lr = warmed_up_lr(options_.lr, step, options_.lr_warmup_steps);
  const auto update = [&](const std::vector<Parameter *> &parameters) {
    for (Parameter *p : parameters) {
      if (correction)
        sgd_step(*p, lr);
      else
        sgd_momentum_step(*p, lr, options_.momentum);
    }
  };
  // Each bucket's parameters are updated as soon as it ends, beside the later
  // buckets' all-reduce; the time blocked in between is exposed communication.
  const Clock::time_point wait_start = Clock::now();
  double blocked = 0;
  if (all_reduce)
    for (size_t k = 0; k < buckets_.size(); ++k) {
      const Clock::time_point before = Clock::now();
      try {
        buckets_[k].sync->wait_bucket(buckets_[k].index);
      } catch (const dlk::comm::Error &) {
        break;  // wait_all rethrows it once every bucket has ended
      }
      blocked += seconds_between(before, Clock::now());
      update(bucket_parameters_[k]);
    }
  const Clock::time_point final_wait = Clock::now();
  std::vector<dlk_comm_report> buckets;
  const uint64_t wire_bytes = all_reduce ? wait_all(buckets) : 0;
  const Clock::time_point wait_end = Clock::now();
  blocked += seconds_between(final_wait, wait_end);
  if (!all_reduce) update(network_.parameters());
  if (step == 0 && rank_ == options_.inject_divergence) {
    float &w = network_.parameters().front()->value[0];
    w = std::nextafter(w, 1.0f);
  }
  if (options_.trace_norms > 0 && rank_ == 0 && step % options_.trace_norms == 0)
    print_norms(step, loss / static_cast<double>(local_batch_));
  network_.refresh_low_precision();
  if (!options_.error_feedback && all_reduce)
    for (dlk::comm::Synchronizer *s : synchronizers()) s->reset_residuals();
  const Clock::time_point end = Clock::now();

  StepMeasure m;
  m.seconds = seconds_between(start, end);
  m.wait = blocked;
  m.wire = static_cast<double>(wire_bytes);
  for (const dlk_comm_report &b : buckets) m.codec += b.encode_seconds + b.decode_seconds;
  m.sim = ops_.take_sim_seconds();
  if (!sample) return m;

  StepTimeline t;
  t.step = step;
  t.step_seconds = m.seconds;
  t.wait_start = seconds_between(start, wait_start);
  t.wait_end = seconds_between(start, wait_end);
  t.update_end = m.seconds;
  const auto &timings = network_.timings();
  for (size_t i = 0; i < timings.size(); ++i)
    t.layers.push_back({network_.layers()[i]->spec().name,
                        seconds_between(start, timings[i].forward_start),
                        seconds_between(start, timings[i].forward_end),
                        seconds_between(start, timings[i].backward_start),
                        seconds_between(start, timings[i].backward_end)});
  if (!all_reduce) {
    record.timeline.push_back(std::move(t));
    return m;
  }
  std::vector<double> starts, ends;
  for (dlk::comm::Synchronizer *s : synchronizers()) {
    if (s->bucket_count() == 0) continue;  // every gradient under --min-compress-bytes
    const auto [began, ended] = s->bucket_times();
    starts.insert(starts.end(), began.begin(), began.end());
    ends.insert(ends.end(), ended.begin(), ended.end());
  }
  const double origin = std::chrono::duration<double>(start.time_since_epoch()).count();
  for (size_t k = 0; k < buckets.size(); ++k) {
    const dlk_comm_report &b = buckets[k];
    t.buckets.push_back({static_cast<int>(k), starts[k] - origin, ends[k] - origin,
                         b.logical_bytes, b.wire_bytes_sent, b.wire_bytes_received,
                         b.encode_seconds, b.decode_seconds, dlk_comm_algorithm_name(b.algorithm)});
  }
  record.timeline.push_back(std::move(t));
  return m;
}

uint64_t Trainer::wait_all(std::vector<dlk_comm_report> &bucket_reports) {
  uint64_t wire_bytes = 0;
  bucket_reports.clear();
  std::exception_ptr error;
  for (dlk::comm::Synchronizer *s : synchronizers()) {
    std::vector<dlk_comm_report> reports;
    try {
      wire_bytes += s->wait(&reports).wire_bytes_sent;
    } catch (const dlk::comm::Error &) {
      if (!error) error = std::current_exception();
    }
    bucket_reports.insert(bucket_reports.end(), reports.begin(), reports.end());
  }
  if (error) std::rethrow_exception(error);
  return wire_bytes;
}

std::vector<dlk::comm::Synchronizer *> Trainer::synchronizers() {
  if (dense_sync_) return {&sync_, dense_sync_.get()};
  return {&sync_};
}

double Trainer::evaluate() {
  const Split &test = data_.test;
  const int64_t begin = test.count * rank_ / ranks_, end = test.count * (rank_ + 1) / ranks_;
  const int64_t n = network_.batch(), pixels = model_.input.elements();
  std::vector<int32_t> order(static_cast<size_t>(test.count));
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int32_t>(i);
  std::vector<int32_t> labels(static_cast<size_t>(n));
  int64_t correct = 0;
  for (int64_t first = begin; first < end; first += n) {
    const int64_t valid = std::min(n, end - first);
    std::fill(network_.input(), network_.input() + n * pixels, 0.0f);
    gather_batch(test, order, first, valid, pixels, network_.input(), labels.data());
    correct += count_correct(network_.forward(ops_), labels.data(), valid, model_.classes);
  }
  ops_.take_sim_seconds();  // the test's ops are not a training step's
  int64_t total = 0;
  MPI_Allreduce(&correct, &total, 1, MPI_INT64_T, MPI_SUM, mpi_);
  return static_cast<double>(total) / static_cast<double>(test.count);
}

// The weights and momenta agree on every rank, except that with momentum
// correction each rank's momentum is its own: the ranks then compare their
// weights, and the checksum covers every rank's momentum, in rank order.
std::string Trainer::check_ranks_agree(int epoch) {
  const bool shared_momentum = !options_.momentum_correction;
  uint64_t h = 1469598103934665603ull, m = h;
  for (const Parameter *p : network_.parameters()) {
    h = fnv1a(h, p->value.data(), p->value.size() * sizeof(float));
    uint64_t &into = shared_momentum ? h : m;
    into = fnv1a(into, p->momentum.data(), p->momentum.size() * sizeof(float));
  }
  std::vector<uint64_t> all(static_cast<size_t>(ranks_)), momenta(all.size());
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, mpi_);
  for (int r = 1; r < ranks_; ++r)
    if (all[static_cast<size_t>(r)] != all[0])
      throw AgreedError("the ranks' weights differ after epoch " + std::to_string(epoch) +
                        ": rank " + std::to_string(r) + " has checksum " +
                        hex(all[static_cast<size_t>(r)]) + ", rank 0 " + hex(all[0]));
  if (shared_momentum) return hex(h);
  MPI_Allgather(&m, 1, MPI_UINT64_T, momenta.data(), 1, MPI_UINT64_T, mpi_);
  return hex(fnv1a(h, momenta.data(), momenta.size() * sizeof(uint64_t)));
}

void Trainer::progress(int epoch, int64_t step_in_epoch, double loss, double step_seconds,
                       bool done) {
  if (!terminal_) return;
  std::fprintf(stderr, "\repoch %d  step %lld/%lld  loss %.4f  %.2f ms/step%s", epoch,
               static_cast<long long>(step_in_epoch), static_cast<long long>(steps_per_epoch_),
               loss, step_seconds * 1e3, done ? "\n" : "   ");
  std::fflush(stderr);
}

void Trainer::print_norms(int64_t step, double loss) {
  const auto norm = [](const std::vector<float> &v) {
    double sum = 0;
    for (const float x : v) sum += static_cast<double>(x) * x;
    return std::sqrt(sum);
  };
  std::fprintf(stderr, "trace step %lld loss %.4f", static_cast<long long>(step), loss);
  for (const Parameter *p : network_.parameters())
    std::fprintf(stderr, " | %s w %.4g momentum %.4g grad %.4g", p->name.c_str(), norm(p->value),
                 norm(p->momentum), norm(p->grad));
  std::fprintf(stderr, "\n");
}

RunRecord Trainer::run(const std::function<void(const EpochRow &)> &on_epoch) {
  RunRecord record;
  record.first_step = step_;
  record.buckets = static_cast<int>(buckets_.size());
  record.bucket_bytes = bucket_bytes_;
  int64_t last = static_cast<int64_t>(options_.epochs) * steps_per_epoch_;
  if (options_.steps > 0) last = std::min<int64_t>(last, options_.steps);
  // Steps of the timeline: spread over the run, never its first (warm-up).
  std::vector<int64_t> samples;
  const int64_t span = last - step_ - 1;
  for (int i = 0; i < options_.timeline_steps && span > 0; ++i)
    samples.push_back(step_ + 1 + span * i / std::max(1, options_.timeline_steps));
  const Clock::time_point run_start = Clock::now();
  double train_seconds = 0;

  while (step_ < last) {
    const int64_t epoch = step_ / steps_per_epoch_;
    const int64_t epoch_end = std::min(last, (epoch + 1) * steps_per_epoch_);
    const std::vector<int32_t> order = epoch_order(epoch);
    const Clock::time_point epoch_start = Clock::now();
    EpochRow row;
    row.epoch = static_cast<int>(epoch) + 1;
    loss_sum_ = 0;
    StepMeasure sum;
    std::vector<double> step_times;
    Clock::time_point shown = epoch_start;
    bool stop = false;
    while (step_ < epoch_end && !stop) {
      const bool sample = std::find(samples.begin(), samples.end(), step_) != samples.end();
      const StepMeasure m = train_step(step_, order, sample, record);
      ++step_;
      train_seconds += m.seconds;
      step_times.push_back(m.seconds);
      if (options_.eval_every > 0 && step_ % options_.eval_every == 0) {
        record.evals.push_back({step_, train_seconds, evaluate()});
        if (options_.target_accuracy > 0 && record.reached_index < 0 &&
            100.0 * record.evals.back().test_accuracy >= options_.target_accuracy) {
          record.reached_index = static_cast<int>(record.evals.size()) - 1;
          stop = true;
        }
      }
      sum.seconds += m.seconds;
      sum.wait += m.wait;
      sum.codec += m.codec;
      sum.wire += m.wire;
      sum.sim += m.sim;
      ++row.steps;
      if (terminal_ && seconds_between(shown, Clock::now()) > 0.25) {
        shown = Clock::now();
        progress(row.epoch, step_ - epoch * steps_per_epoch_,
                 loss_sum_ / static_cast<double>(row.steps * local_batch_),
                 sum.seconds / static_cast<double>(row.steps), false);
      }
    }
    double loss_total = 0;
    MPI_Allreduce(&loss_sum_, &loss_total, 1, MPI_DOUBLE, MPI_SUM, mpi_);
    const double steps = static_cast<double>(row.steps);
    row.train_loss = loss_total / (steps * static_cast<double>(options_.batch));
    progress(row.epoch, step_ - epoch * steps_per_epoch_, row.train_loss, sum.seconds / steps, true);
    row.test_accuracy = evaluate();
    row.step_seconds = sum.seconds / steps;
    std::nth_element(step_times.begin(), step_times.begin() + static_cast<ptrdiff_t>(step_times.size() / 2),
                     step_times.end());
    row.step_seconds_median = step_times[step_times.size() / 2];
    row.train_seconds = train_seconds;
    row.exposed_comm_seconds = sum.wait / steps;
    row.compute_seconds = row.step_seconds - row.exposed_comm_seconds;
    row.codec_seconds = sum.codec / steps;
    row.wire_bytes = sum.wire / steps;
    row.sim_seconds = sum.sim / steps;
    row.weights_checksum = check_ranks_agree(row.epoch);
    row.wall_seconds = seconds_between(epoch_start, Clock::now());
    if (rank_ == 0) on_epoch(row);
    record.epochs.push_back(row);
    if (stop) break;
  }
  record.last_step = step_;
  record.wall_seconds = seconds_between(run_start, Clock::now());
  if (!options_.save.empty()) save(options_.save);
  return record;
}

void Trainer::save(const std::string &path) {
  Checkpoint c;
  c.model = model_.name;
  c.dtype = options_.dtype;
  c.algorithm = options_.algorithm;
  c.ranks = static_cast<uint32_t>(ranks_);
  c.error_feedback = options_.error_feedback;
  c.momentum_correction = options_.momentum_correction;
  c.min_compress_bytes = options_.min_compress_bytes;
  c.batch = static_cast<uint64_t>(options_.batch);
  c.seed = options_.seed;
  c.step = static_cast<uint64_t>(step_);
  // With momentum correction the momentum is this rank's own: saved per rank.
  c.rank_momenta.emplace_back();
  for (const Parameter *p : network_.parameters()) {
    c.parameters.push_back(
        {p->name, p->value, c.momentum_correction ? std::vector<float>{} : p->momentum});
    if (c.momentum_correction) c.rank_momenta[0].push_back(p->momentum);
  }
  c.bucket_states.emplace_back();
  for (const Slot &b : buckets_) c.bucket_states[0].push_back(b.sync->save_bucket_state(b.index));
  save_checkpoint(path, std::move(c), mpi_);
}

void Trainer::resume(const std::string &path) {
  Checkpoint c;
  try {
    c = read_checkpoint(path);
  } catch (const CheckpointError &e) {
    throw AgreedError(e.what());
  }
  const auto refuse = [&](const std::string &what, const std::string &theirs,
                          const std::string &ours) {
    throw AgreedError(path + ": refused: the checkpoint is of " + what + " " + theirs +
                      ", this run of " + ours);
  };
  if (c.model != model_.name) refuse("model", c.model, model_.name);
  if (c.ranks != static_cast<uint32_t>(ranks_))
    refuse("rank count", std::to_string(c.ranks), std::to_string(ranks_));
  if (c.algorithm != options_.algorithm) refuse("algorithm", c.algorithm, options_.algorithm);
  if (c.dtype != options_.dtype) refuse("dtype", c.dtype, options_.dtype);
  if (c.batch != static_cast<uint64_t>(options_.batch))
    refuse("batch", std::to_string(c.batch), std::to_string(options_.batch));
  if (c.seed != options_.seed) refuse("seed", std::to_string(c.seed), std::to_string(options_.seed));
  if (c.error_feedback != options_.error_feedback)
    refuse("error feedback", c.error_feedback ? "on" : "off", options_.error_feedback ? "on" : "off");
  // The momentum of a run without the correction is the ranks' summed one; with
  // it, each rank's own: neither stands in for the other.
  if (c.momentum_correction != options_.momentum_correction)
    refuse("momentum correction", c.momentum_correction ? "on" : "off",
           options_.momentum_correction ? "on" : "off");
  if (c.min_compress_bytes != options_.min_compress_bytes)
    refuse("--min-compress-bytes", std::to_string(c.min_compress_bytes),
           std::to_string(options_.min_compress_bytes));
  const std::vector<Parameter *> params = network_.parameters();
  if (c.parameters.size() != params.size())
    refuse("parameter count", std::to_string(c.parameters.size()), std::to_string(params.size()));
  for (size_t i = 0; i < params.size(); ++i)
    if (c.parameters[i].name != params[i]->name ||
        c.parameters[i].value.size() != params[i]->value.size())
      refuse("parameter", c.parameters[i].name + " (" + std::to_string(c.parameters[i].value.size()) +
                              " elements)",
             params[i]->name + " (" + std::to_string(params[i]->value.size()) + ")");
  const auto &states = c.bucket_states[static_cast<size_t>(rank_)];
  if (states.size() != buckets_.size())
    refuse("bucket count", std::to_string(states.size()), std::to_string(buckets_.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    params[i]->value = c.parameters[i].value;
    params[i]->momentum = options_.momentum_correction
                              ? c.rank_momenta[static_cast<size_t>(rank_)][i]
                              : c.parameters[i].momentum;
  }
  network_.refresh_low_precision();
  for (uint32_t k = 0; k < states.size(); ++k) {
    try {
      buckets_[k].sync->load_bucket_state(buckets_[k].index, states[k]);
    } catch (const dlk::comm::Error &e) {
      throw AgreedError(path + ": refused: bucket " + std::to_string(k) + ": " + e.what());
    }
  }
  step_ = static_cast<int64_t>(c.step);
  if (options_.steps > 0 && step_ > options_.steps)
    throw AgreedError(path + ": the checkpoint is at step " + std::to_string(step_) +
                      ", past --steps " + std::to_string(options_.steps));
}

}  // namespace dlk_train
