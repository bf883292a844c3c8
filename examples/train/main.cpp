// dlk-train: trains a CNN on Fashion-MNIST with dlk's ops, data parallel over
// MPI through libdlk_comm's synchronizer (docs/train.md).
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>

#include <dlk/dlk_comm.hpp>

#include "dataset.hpp"
#include "describe.hpp"
#include "options.hpp"
#include "report.hpp"
#include "trainer.hpp"

namespace {

using namespace dlk_train;

void write_json(const Options &o, const nlohmann::ordered_json &j) {
  if (o.json == "-") {
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::ofstream out(o.json);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error("--json " + o.json + ": cannot be written");
}

// Everything after MPI is up: errors every rank meets alike end the run on
// every rank; any other error on one rank of several aborts the job.
int train(const Options &o, const ModelSpec &model, const Dataset &data) {
  dlk::comm::Communicator comm;  // MPI_COMM_WORLD, initialized here when nobody has
  const int rank = comm.rank(), ranks = comm.size();
  try {
    Trainer trainer(o, model, data, comm);
    RunContext run{o,
                         model,
                         trainer.context_info(),
                         ranks,
                         trainer.local_batch(),
                         trainer.steps_per_epoch(),
                         data.train.count,
                         data.test.count,
                         std::strcmp(trainer.context_info().backend, "fpga_sim") == 0,
                         "",
                         0,
                         0.0};
    describe_machine(run);
    std::FILE *table = o.json == "-" ? stderr : stdout;
    if (rank == 0) print_table_header(table, run);
    const RunRecord record =
        trainer.run([&](const EpochRow &row) { print_table_row(table, run, row); });
    if (rank == 0 && o.target_accuracy > 0) {
      const Evaluation *r = record.reached();
      if (r)
        std::fprintf(table, "time to %g %% test accuracy: %.2f s (step %lld)\n", o.target_accuracy,
                     r->train_seconds, static_cast<long long>(r->step));
      else
        std::fprintf(table, "time to %g %% test accuracy: not reached\n", o.target_accuracy);
    }
    if (rank == 0 && !o.json.empty()) write_json(o, run_json(run, record));
    return 0;
  } catch (const AgreedError &e) {
    if (rank == 0) std::fprintf(stderr, "dlk-train: %s\n", e.what());
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dlk-train: rank %d: %s\n", rank, e.what());
    if (ranks > 1) MPI_Abort(MPI_COMM_WORLD, 1);
    return 1;
  }
}

}  // namespace

int main(int argc, char **argv) {
  Options options;
  if (const auto code = parse_options(argc, argv, options)) return *code;
  try {
    const ModelSpec model = make_model_spec(options.model);
    if (options.describe) {
      std::printf("%s\n", describe(model).dump(2).c_str());
      return 0;
    }
    // Before MPI starts: a bad data file stops every rank alike.
    const Dataset data =
        load_dataset(options.data_dir.empty() ? kDefaultDataDir : options.data_dir, model.input,
                     model.classes, options.train_subset, options.test_subset);
    return train(options, model, data);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "dlk-train: %s\n", e.what());
    return 1;
  }
}
