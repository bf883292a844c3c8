#include "perf/report/report_plan.hpp"

#include "dlk/dlk.hpp"
#include "perf/ceilings/machine_ceilings.hpp"
#include "perf/plan/codec_costs.hpp"
#include "perf/plan/step_plan.hpp"

namespace dlk::perf {

nlohmann::ordered_json ReportPlan::json() const {
  nlohmann::ordered_json j = {{"ran", ran}};
  if (!ran) {
    j["reason"] = reason;
    return j;
  }
  j["model"] = model;
  j["global_batch"] = batch;
  j["ranks"] = ranks;
  j["link"] = {{"bandwidth", link.bandwidth}, {"latency_seconds", link.latency}};
  j["steps"] = steps.json();
  j["winner"] = winner;
  return j;
}

ReportPlan plan_on_machine_link(const std::optional<LinkSpec> &link, int ranks, int threads, bool quick) {
  ReportPlan r;
  if (!link) {
    r.reason = "no link: the all-reduce section did not run or has no MPI_Allreduce fit";
    return r;
  }
  r.ran = true;
  r.model = "lenet5";
  r.batch = 64;
  r.ranks = ranks;
  r.link = *link;
  const PlanModel model = builtin_model(r.model);
  dlk_context_options options = dlk::context_options();
  options.backend = "cpu";
  options.num_threads = threads;
  dlk::Context context(options);
  const ComputeTimes compute = measured_times(model, r.batch / ranks, context,
                                              ceilings_cache_key(threads) + " cpu", false, quick ? 0.01 : 0.05);
  CodecCosts codecs(0.01, quick ? 0.01 : 0.05);
  StepSetup setup;
  setup.model = &model;
  setup.compute = &compute;
  setup.ranks = ranks;
  setup.link = *link;
  setup.contention = default_contention(threads);
  setup.chunk_bytes = chunk_bytes_from_environment();
  const CodecLookup lookup = [&](const std::string &a, std::uint64_t count) { return codecs.at(a, count); };
  std::vector<AlgorithmPlan> plans;
  for (const std::string &a : plan_algorithms()) plans.push_back(plan_algorithm(setup, a, lookup));
  const double native = plans.front().step.step_seconds;
  const AlgorithmPlan *best = &plans.front();
  for (const AlgorithmPlan &p : plans) {
    r.steps.add_row({p.algorithm, p.step.step_seconds, p.step.compute_seconds,
                     p.step.step_seconds - p.step.compute_seconds, native / p.step.step_seconds});
    if (p.step.step_seconds < best->step.step_seconds) best = &p;
  }
  r.winner = best->algorithm;
  return r;
}

}  // namespace dlk::perf
