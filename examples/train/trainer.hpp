// The training loop of one rank: its shard of every global batch through the
// network, gradients handed to the synchronizer as backward produces them, SGD
// with momentum, the test accuracy and the cross-rank weight check after each
// epoch, checkpoints, and the measurements of run_record.hpp.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <random>

#include <dlk/dlk_comm.hpp>

#include "dataset.hpp"
#include "network.hpp"
#include "options.hpp"
#include "run_record.hpp"

namespace dlk_train {

// An error every rank meets at the same point (bad checkpoint, ranks that
// differ): the ranks can stop together without aborting the job.
class AgreedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Trainer {
 public:
  Trainer(const Options &options, const ModelSpec &model, const Dataset &data,
          const dlk::comm::Communicator &comm);
  // on_epoch sees each epoch's row as it completes.
  RunRecord run(const std::function<void(const EpochRow &)> &on_epoch);

  const dlk_context_info &context_info() const { return ops_.info(); }
  int64_t local_batch() const { return local_batch_; }
  int64_t steps_per_epoch() const { return steps_per_epoch_; }

 private:
  struct StepMeasure {
    double seconds = 0, wait = 0, codec = 0, wire = 0, sim = 0;
  };
  StepMeasure train_step(int64_t step, const std::vector<int32_t> &order, bool sample,
                         RunRecord &record);
  // Waits for every bucket of the step; bucket_reports gets one per bucket, in
  // buckets_' order. The first error of either synchronizer is rethrown after both
  // have ended.
  // Returns the bytes this rank sent.
  uint64_t wait_all(std::vector<dlk_comm_report> &bucket_reports);
  std::vector<dlk::comm::Synchronizer *> synchronizers();
  double evaluate();
  std::string check_ranks_agree(int epoch);
  std::vector<int32_t> epoch_order(int64_t epoch) const;
  void resume(const std::string &path);
  void save(const std::string &path);
  void progress(int epoch, int64_t step_in_epoch, double loss, double step_seconds, bool done);
  // --trace-norms: one line on stderr, "trace step S loss L" then per parameter
  // "| NAME w |w| momentum |m| grad |g|" (L2 norms), after the step's update.
  void print_norms(int64_t step, double loss);

  const Options &options_;
  const ModelSpec &model_;
  const Dataset &data_;
  MPI_Comm mpi_;
  int rank_ = 0, ranks_ = 1;
  int64_t local_batch_ = 0, shard_begin_ = 0, steps_per_epoch_ = 0;
  Ops ops_;
  Network network_;
  uint64_t bucket_bytes_;  // before sync_, which is made with it
  // The algorithm's synchronizer, and with --min-compress-bytes a native one for
  // the gradients under it (null without): both on the one communicator, whose
  // collective thread runs their buckets in the order the ranks start them.
  dlk::comm::Synchronizer sync_;
  std::unique_ptr<dlk::comm::Synchronizer> dense_sync_;
  struct Slot {
    dlk::comm::Synchronizer *sync;
    uint32_t index;  // of the gradient or of the bucket, in that synchronizer
  };
  std::map<const Parameter *, Slot> gradient_slot_;
  // sync_'s buckets, then dense_sync_'s: the order of reports, timelines and
  // checkpoints' bucket states.
  std::vector<Slot> buckets_;
  // Per bucket, its parameters: each is updated as soon as its bucket has ended,
  // while the later buckets are still all-reduced.
  std::vector<std::vector<Parameter *>> bucket_parameters_;
  std::vector<int32_t> labels_;
  std::vector<float> dlogits_;
  int64_t step_ = 0;
  double loss_sum_ = 0;  // this rank's, since the epoch began
  bool terminal_ = false;
};

}  // namespace dlk_train
