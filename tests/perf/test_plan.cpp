// dlk-perf plan's pure parts: the built-in models against dlk-train's figures,
// the describe/1 parser (round trip and bad input), link strings, the
// all-reduce cost per algorithm and its growth with P, the synchronizer's
// buckets, the step schedule (overlap, exposure, contention), the crossover,
// and both charts as well-formed SVG.
#include <algorithm>
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "perf/charts/svg_chart.hpp"
#include "perf/plan/algorithm_overheads.hpp"
#include "perf/plan/link_measurements.hpp"
#include "perf/plan/plan_charts.hpp"
#include "perf/plan/step_plan.hpp"
#include "perf/plan/train_timeline.hpp"
#include "xml_well_formed.hpp"

namespace dlk::perf {
namespace {

// A fixed codec table: the message a quarter of the bucket (int8-like), or
// 1/32 (onebit-like), encode and decode at 1 GB/s.
BucketCodec table_codec(const std::string &algorithm, std::uint64_t count) {
  const double bytes = 4.0 * static_cast<double>(count);
  const double ratio = algorithm == "onebit" ? 1.0 / 32 : algorithm == "topk" ? 0.02 : algorithm == "int4" ? 1.0 / 8
                       : algorithm == "int8"                                 ? 0.25
                                                                             : 0.5;
  return {bytes * ratio, bytes / 1e9, bytes / 1e9};
}

ComputeTimes flat_compute(const PlanModel &m, double per_layer) {
  ComputeTimes t;
  t.forward_seconds.assign(m.layers.size(), per_layer);
  t.backward_seconds.assign(m.layers.size(), 2 * per_layer);
  t.update_seconds = per_layer;
  return t;
}

// LeNet-5 with `compute` on `ranks` ranks over a preset link, in dlk-train's
// default buckets (three).
StepSetup lenet_step(const PlanModel &lenet, const ComputeTimes &compute, int ranks, const char *link) {
  StepSetup s;
  s.model = &lenet;
  s.compute = &compute;
  s.ranks = ranks;
  s.link = parse_link(link);
  s.bucket_bytes = train_default_bucket_bytes(lenet);
  return s;
}

}  // namespace

TEST_CASE("the built-in dlk-train models have dlk-train's parameters, FLOPs and gradient order", "[perf][plan]") {
  CHECK(builtin_model("lenet5").parameters == 61706);
  CHECK(builtin_model("vgg_small").parameters == 870634);
  CHECK(builtin_model("wide").parameters == 20037642);
  const PlanModel lenet = builtin_model("lenet5");
  REQUIRE(lenet.gradients.size() == 10);
  CHECK(lenet.gradients.front().name == "fc3.weight");
  CHECK(lenet.gradients.back().name == "conv1.bias");
  // conv1: 6x1x5x5 weights at 28x28 outputs; its input gradient is never computed.
  const PlanLayer &conv1 = lenet.layers[0];
  CHECK(conv1.forward_flop == 2.0 * 150 * 784 + 6 * 784);
  CHECK(conv1.backward_flop == conv1.forward_flop);
  CHECK(lenet.layers[1].fused_into == "conv1");
  CHECK(lenet.layers[1].forward_flop == 0);
  CHECK(builtin_model("resnet50").parameters > 25000000);
  CHECK(builtin_model("transformer").parameters == 3 * 768 * 768 + 3 * 768 + 768 * 768 + 768 + 2 * 768 * 3072 + 3072 + 768);
  CHECK_THROWS_WITH(builtin_model("alexnet"), Catch::Contains("lenet5, vgg_small, wide, resnet50, transformer"));
}

TEST_CASE("describe/1 JSON parses back to the same model, and bad documents say what is wrong", "[perf][plan]") {
  for (const char *name : {"lenet5", "vgg_small", "wide"}) {
    const PlanModel m = builtin_model(name);
    const PlanModel back = parse_model_json(model_json(m).dump());
    CHECK(back.parameters == m.parameters);
    CHECK(back.layers.size() == m.layers.size());
    CHECK(back.gradients.size() == m.gradients.size());
    CHECK(back.forward_flop() == m.forward_flop());
    CHECK(back.backward_flop() == m.backward_flop());
  }
  const nlohmann::ordered_json good = model_json(builtin_model("lenet5"));
  const auto broken = [&](const std::function<void(nlohmann::ordered_json &)> &change) {
    nlohmann::ordered_json j = good;
    change(j);
    return j.dump();
  };
  CHECK_THROWS_WITH(parse_model_json("{"), Catch::Contains("does not parse"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["schema"] = "dlk-train/describe/2"; })),
                    Catch::Contains("schema"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["layers"][0]["kind"] = "lstm"; })),
                    Catch::Contains("layers[0].kind") && Catch::Contains("lstm"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["layers"][0]["out_shape"][1] = -3; })),
                    Catch::Contains("layers[0].out_shape[1]"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["layers"][0]["parameters"] = 7; })),
                    Catch::Contains("layers[0].parameters"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["gradients"][0]["layer"] = "nowhere"; })),
                    Catch::Contains("gradients[0].layer"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j["layers"][6]["in_shape"] = {7}; })),
                    Catch::Contains("layers[6]"));
  CHECK_THROWS_WITH(parse_model_json(broken([](auto &j) { j.erase("gradients"); })), Catch::Contains("gradients"));
}

TEST_CASE("link strings: presets and bandwidth=,latency=; bad ones are refused with the forms", "[perf][plan]") {
  CHECK(parse_link("1gbit").bandwidth == Approx(125e6));
  CHECK(parse_link("10gbit").latency == kPresetLatency);
  CHECK(parse_link("100mbit").bandwidth == Approx(12.5e6));
  const LinkSpec l = parse_link("bandwidth=12.5GB/s,latency=5us");
  CHECK(l.bandwidth == Approx(12.5e9));
  CHECK(l.latency == Approx(5e-6));
  CHECK(parse_link("bandwidth=1Gbit/s").bandwidth == Approx(125e6));
  for (const char *bad : {"", "fast", "10", "10gbyte", "bandwidth=", "bandwidth=12GB", "latency=5us",
                          "bandwidth=1GB/s,latency=5", "bandwidth=1GB/s,bandwidth=2GB/s", "bandwidth=-1GB/s",
                          "bandwidth=1GB/s,", "speed=1GB/s", "1e400gbit", "nangbit"})
    CHECK_THROWS_WITH(parse_link(bad), Catch::Contains("--link") && Catch::Contains("bandwidth=<rate>"));
}

TEST_CASE("all-reduce cost per algorithm follows the alpha-beta model and grows with P", "[perf][plan]") {
  const LinkSpec link{"test", 1e9, 1e-5};
  const double n = 4e6;
  const std::vector<std::pair<std::string, BucketCodec>> codecs{{"onebit", table_codec("onebit", 1000000)},
                                                                {"topk", table_codec("topk", 1000000)},
                                                                {"int8", table_codec("int8", 1000000)},
                                                                {"fp16", table_codec("fp16", 1000000)}};
  CHECK(bucket_cost("ring", n, 1, link, codecs).network_seconds == 0);
  CHECK(bucket_cost("ring", n, 2, link, codecs).network_seconds == Approx(2e-5 + n / 1e9));
  CHECK(bucket_cost("ring", n, 4, link, codecs).network_seconds == Approx(6e-5 + 1.5 * n / 1e9));
  CHECK(bucket_cost("ps", n, 4, link, codecs).network_seconds == Approx(6e-5 + 6 * n / 1e9));
  const BucketCost onebit = bucket_cost("onebit", n, 4, link, codecs);
  CHECK(onebit.wire_bytes == Approx(1.5 * n / 32));
  CHECK(onebit.codec_seconds == Approx(1.25 * n / 1e9 + 2 * n / 1e9));
  // Chunks of 1 MiB of each rank's segment (n / P) pipeline the codec with the
  // wire: the larger hides all but one round of the smaller. 4 MB on 4 ranks
  // is one round; on 1 rank's worth of a 16 MB bucket at P = 2, 8.
  CHECK(onebit.chunks == 1);
  const BucketCost big = bucket_cost("onebit", 4 * n, 2, link, codecs);
  CHECK(big.chunks == 8);
  CHECK(big.codec_phase_seconds == Approx(big.codec_seconds));
  CHECK(big.network_phase_seconds == Approx(big.network_seconds / 8));
  // Messages: 2(P-1) for the dense algorithms; two-phase 2(P-1) per round and
  // piece (a chunk's message to an owner below 60 KiB: one piece each).
  CHECK(onebit.messages == Approx(6));
  CHECK(bucket_cost("ring", n, 4, link, codecs).messages == Approx(6));
  // 16 MB on 2 ranks: 8 rounds, each chunk's message 1/16 of the bucket's: 25 KB
  // is one piece, 250 KB five.
  CHECK(allreduce_messages("int8", 4 * n, 4e5, 2, 1 << 20, 0.01) == Approx(2 * 8));
  CHECK(allreduce_messages("int8", 4 * n, 4e6, 2, 1 << 20, 0.01) == Approx(2 * 8 * 5));
  // native and ps call MPI on at most 16 MiB at a time: a 64 MiB bucket is four
  // calls of 2(P-1) messages and latencies each; ring is one.
  const double mib64 = 64.0 * (1 << 20);
  CHECK(allreduce_messages("native", mib64, mib64, 2, 1 << 20, 0.01) == Approx(2 * 4));
  CHECK(allreduce_messages("ps", mib64 + 1, mib64, 4, 1 << 20, 0.01) == Approx(6 * 5));
  CHECK(allreduce_messages("ring", mib64, mib64, 2, 1 << 20, 0.01) == Approx(2));
  CHECK(bucket_cost("native", mib64, 2, link, codecs).network_seconds ==
        Approx(bucket_cost("ring", mib64, 2, link, codecs).network_seconds + 2 * 3 * link.latency));
  CHECK(bucket_cost("ring", n, 4, link, codecs).network_phase_seconds ==
        bucket_cost("ring", n, 4, link, codecs).network_seconds);
  // top-k's all-gather grows with P; the ring's per-rank bytes stay under 2n.
  CHECK(bucket_cost("topk", n, 8, link, codecs).wire_bytes == Approx(7 * 0.02 * n));
  CHECK(bucket_cost("topk", n, 16, link, codecs).wire_bytes > bucket_cost("topk", n, 8, link, codecs).wire_bytes);
  CHECK(bucket_cost("ring", n, 64, link, codecs).wire_bytes < 2 * n);
  // auto takes the cheapest of native, fp16, int8, onebit.
  const BucketCost chosen = bucket_cost("auto", n, 2, LinkSpec{"slow", 1e6, 1e-5}, codecs);
  CHECK(chosen.algorithm == "onebit");
  CHECK_THROWS(bucket_cost("nccl", n, 2, link, codecs));
  CHECK_THROWS(bucket_cost("ring", n, 0, link, codecs));
}

TEST_CASE("measured terms: the codec replaces the assumed one, a per-message latency (negative down to none "
          "left) and CPU time come from dlk-perf comm's JSON, bad documents are refused", "[perf][plan]") {
  const LinkSpec link{"test", 1e9, 1e-5};
  const double n = 4e6;
  // int8 at 4 MB on 2 ranks measured at the model's time plus 4 ms: 4 ms over its messages.
  const std::vector<std::pair<std::string, BucketCodec>> codecs{{"int8", table_codec("int8", 1000000)}};
  MeasuredTerms terms;
  terms.codec_seconds = 1e-3;
  const BucketCost plain = bucket_cost("int8", n, 2, link, codecs, 1 << 20, 0.01, {{"int8", terms}});
  CHECK(plain.codec_seconds == Approx(1e-3));
  const double model = plain.codec_phase_seconds + plain.network_phase_seconds;
  const std::string doc = R"({"schema": "dlk-perf/comm/1", "ranks": 2, "points": [
      {"bytes": 4000000, "algorithm": "MPI_Allreduce", "seconds": 0.001},
      {"bytes": 4000000, "algorithm": "int8", "seconds": )" +
                          std::to_string(model + 4e-3) + R"(, "encode_seconds": 0.0006,
       "decode_seconds": 0.0004, "cpu_seconds": 0.002},
      {"bytes": 4000000, "algorithm": "native", "seconds": 0.0001}]})";
  const LinkMeasurements m = parse_link_measurements(doc, link, table_codec, 1 << 20, 0.01);
  CHECK(m.ranks == 2);
  REQUIRE(m.at_bytes.count(4000000) == 1);
  const auto &at = m.at_bytes.at(4000000);
  REQUIRE(at.size() == 2);
  CHECK(at[0].first == "int8");
  CHECK(at[0].second.codec_seconds == Approx(1e-3));
  CHECK(at[0].second.cpu_seconds == Approx(2e-3));
  CHECK(at[0].second.message_latency * plain.messages == Approx(4e-3).epsilon(1e-6));
  // native measured under its wire time: the per-message term goes negative
  // down to no latency left, never into the wire time.
  const BucketCost native_plain = bucket_cost("native", n, 2, link, {});
  const double alpha = native_plain.network_seconds - native_plain.wire_bytes / link.bandwidth;
  CHECK(alpha > 0);
  CHECK(at[1].second.message_latency * native_plain.messages == Approx(-alpha));
  CHECK(bucket_cost("native", n, 2, link, {}, 1 << 20, 0.01, at).network_seconds ==
        Approx(native_plain.wire_bytes / link.bandwidth));
  // The plan of a bucket at that size reproduces the measured call.
  const BucketCost priced = bucket_cost("int8", n, 2, link, codecs, 1 << 20, 0.01, at);
  CHECK(priced.codec_phase_seconds + priced.network_phase_seconds == Approx(model + 4e-3).epsilon(1e-6));
  CHECK(priced.cpu_seconds == Approx(2e-3));
  CHECK_THROWS_WITH(parse_link_measurements("{\"schema\": \"dlk-perf/plan/1\"}", link, table_codec, 1 << 20, 0.01),
                    Catch::Contains("dlk-perf/comm/1"));
  CHECK_THROWS_WITH(parse_link_measurements(R"({"schema": "dlk-perf/comm/1", "ranks": 1, "points": []})", link,
                                            table_codec, 1 << 20, 0.01),
                    Catch::Contains("ranks"));
  CHECK_THROWS_WITH(parse_link_measurements(R"({"schema": "dlk-perf/comm/1", "ranks": 2, "points": [
      {"bytes": 4000000, "algorithm": "int8", "seconds": -1}]})", link, table_codec, 1 << 20, 0.01),
                    Catch::Contains("points[0].seconds"));
  CHECK_THROWS_WITH(parse_link_measurements(R"({"schema": "dlk-perf/comm/1", "ranks": 2, "points": [
      {"bytes": 4000000, "algorithm": "nccl", "seconds": 1}]})", link, table_codec, 1 << 20, 0.01),
                    Catch::Contains("nccl"));
  CHECK_THROWS(parse_link_measurements("not json", link, table_codec, 1 << 20, 0.01));
}

TEST_CASE("a bucket's measured CPU time sets its contention; a one-rank timeline gives the layers' times",
          "[perf][plan]") {
  const PlanModel lenet = builtin_model("lenet5");
  const ComputeTimes compute = flat_compute(lenet, 1e-3);
  StepSetup s;
  s.model = &lenet;
  s.compute = &compute;
  s.ranks = 2;
  s.link = parse_link("1gbit");
  s.ranks_here = 2;
  s.threads = 1;
  s.cores = 2;
  LinkMeasurements busy, idle;
  busy.ranks = idle.ranks = 2;
  const auto bytes = static_cast<std::uint64_t>(4 * lenet.parameters);
  MeasuredTerms t;
  t.cpu_seconds = 1;  // far more than the call: a core kept busy throughout
  busy.at_bytes[bytes] = {{"native", t}};
  t.cpu_seconds = 0;
  idle.at_bytes[bytes] = {{"native", t}};
  s.measured = &busy;
  const double with_busy = plan_algorithm(s, "native", table_codec).step.step_seconds;
  s.measured = &idle;
  const double with_idle = plan_algorithm(s, "native", table_codec).step.step_seconds;
  CHECK(with_idle <= with_busy);

  // dlk-train's timeline: the batch gathered before conv1 counts in its forward,
  // the loss after fc3's forward in fc3's; the first sampled step is left out.
  const std::string step = R"({"step": 1, "update_end": 0.030, "wait_end": 0.028, "layers": [
      {"name": "conv1", "forward_start": 0.001, "forward_end": 0.003, "backward_start": 0.020, "backward_end": 0.027},
      {"name": "fc3", "forward_start": 0.003, "forward_end": 0.004, "backward_start": 0.006, "backward_end": 0.008}]})";
  const std::string run = R"({"schema": "dlk-train/run/1", "timeline": [)" + step + "," + step + "]}";
  const ComputeTimes from = timeline_times(lenet, run);
  REQUIRE(from.forward_seconds.size() == lenet.layers.size());
  CHECK(from.forward_seconds.front() == Approx(0.003));
  CHECK(from.backward_seconds.front() == Approx(0.007));
  CHECK(from.forward_seconds.back() == Approx(0.003));
  CHECK(from.backward_seconds.back() == Approx(0.002));
  CHECK(from.forward_seconds[1] == 0);  // conv1.relu: fused, not in the timeline
  CHECK(from.update_seconds == Approx(0.002));
  CHECK_THROWS_WITH(timeline_times(lenet, R"({"schema": "dlk-train/run/1", "timeline": []})"),
                    Catch::Contains("timeline-steps"));
  CHECK_THROWS_WITH(timeline_times(builtin_model("wide"), run), Catch::Contains("conv1"));
  CHECK_THROWS(timeline_times(lenet, R"({"schema": "dlk-train/describe/1"})"));
}

TEST_CASE("buckets follow the synchronizer's rule: backward order, a new one past the cap", "[perf][plan]") {
  // fc3 (164 KB), fc2's weight (67 MB), its bias (16 KB), fc1 (12.8 MB): a gradient
  // past the cap gets a bucket of its own, and the next one starts another.
  const PlanModel wide = builtin_model("wide");
  const std::vector<PlanBucket> b = synchronizer_buckets(wide, 25u << 20);
  REQUIRE(b.size() == 3);
  CHECK(b[0].bytes == 4.0 * (4096 * 10 + 10));  // fc3 alone: fc2's weight would pass the cap
  CHECK(wide.layers[b[0].ready_layer].name == "fc3");
  CHECK(b[1].bytes == 4.0 * 4096 * 4096);
  CHECK(b[2].bytes == 4.0 * (4096 + 784 * 4096 + 4096));
  CHECK(wide.layers[b[2].ready_layer].name == "fc1");
  CHECK(synchronizer_buckets(wide, std::uint64_t{1} << 40).size() == 1);

  // dlk-train's default cap (docs/train.md, --bucket-mb 0): a quarter of the gradient
  // bytes, from 64 KiB to 25 MiB. LeNet-5's 246824 bytes: 64 KiB, three buckets
  // (fc3 + fc2, fc1's weight alone, the rest); wide's 80 MB: 19 MiB.
  const PlanModel lenet = builtin_model("lenet5");
  CHECK(train_default_bucket_bytes(lenet) == 64u << 10);
  const std::vector<PlanBucket> l = synchronizer_buckets(lenet, train_default_bucket_bytes(lenet));
  REQUIRE(l.size() == 3);
  CHECK(l[0].bytes == 4.0 * (84 * 10 + 10 + 120 * 84 + 84));
  CHECK(l[1].bytes == 4.0 * 400 * 120);
  CHECK(l[0].bytes + l[1].bytes + l[2].bytes == 4.0 * static_cast<double>(lenet.parameters));
  CHECK(train_default_bucket_bytes(wide) == 4 * static_cast<std::uint64_t>(wide.parameters) / 4);
}

TEST_CASE("the step schedule overlaps communication with backward, exposes the tail, and counts contention",
          "[perf][plan]") {
  StepInputs in;
  in.forward_seconds = {1, 1, 1};
  in.backward_seconds = {2, 2, 2};
  in.update_seconds = 0.5;
  StepPrediction p = predict_step(in);
  CHECK(p.step_seconds == Approx(9.5));
  CHECK(p.compute_seconds == Approx(9.5));
  // A bucket ready after the last layer's backward (index 2), 1 s of wire: hidden under layers 1 and 0.
  in.buckets = {{4, 2, 0, 1}};
  p = predict_step(in);
  CHECK(p.step_seconds == Approx(9.5));
  CHECK(p.exposed_network_seconds == 0);
  // A bucket ready only at the end (layer 0): all of it exposed.
  in.buckets = {{4, 0, 0.5, 1}};
  p = predict_step(in);
  CHECK(p.exposed_network_seconds == Approx(1));
  CHECK(p.exposed_codec_seconds == Approx(0.5));
  CHECK(p.step_seconds == Approx(11));
  // Contention 2: the background thread's 1 s of wire during layer 1 slows compute by 0.5 s.
  in.buckets = {{4, 2, 0, 1}};
  in.contention = 2;
  p = predict_step(in);
  CHECK(p.contention_seconds == Approx(0.5));
  CHECK(p.step_seconds == Approx(10));
  in.contention = 0.5;
  CHECK_THROWS(predict_step(in));
}

TEST_CASE("the update follows backward a bucket at a time, each as its bucket ends, beside the later buckets",
          "[perf][plan]") {
  StepInputs in;
  in.forward_seconds = {1, 1, 1};
  in.backward_seconds = {2, 2, 2};
  in.update_seconds = 0.5;
  // Two buckets of equal bytes: the first ends during backward, the second
  // (ready at the end) has 1 s of wire. The first's update (0.25 s) runs
  // beside the second's wire; only the second's update follows it.
  in.buckets = {{4, 2, 0, 1}, {4, 0, 0, 1}};
  StepPrediction p = predict_step(in);
  CHECK(p.step_seconds == Approx(3 + 6 + 1 + 0.25));
  CHECK(p.exposed_network_seconds == Approx(0.75));
  CHECK(p.contention_seconds == Approx(0));
  CHECK(p.compute_seconds + p.contention_seconds + p.exposed_network_seconds + p.exposed_codec_seconds ==
        Approx(p.step_seconds));
  // Shares follow the bytes: the first bucket three times the second.
  in.buckets = {{12, 2, 0, 1}, {4, 0, 0, 1}};
  p = predict_step(in);
  CHECK(p.step_seconds == Approx(3 + 6 + 1 + 0.125));
  // With contention 2 the first update runs at half speed beside the wire.
  in.contention = 2;
  in.buckets = {{4, 2, 0, 0.5}, {4, 0, 0, 1}};
  p = predict_step(in);
  // Layer 1 runs at half speed beside the first bucket's 0.5 s of wire (0.25 s
  // later): backward ends at 6.25; the first update takes 0.5 s beside the
  // second bucket, which ends at 7.25; the second update follows it.
  CHECK(p.step_seconds == Approx(3 + 7.25 + 0.25));
  CHECK(p.contention_seconds == Approx(0.25 + 0.25));
  // No bucket (one rank): the whole update after backward.
  in.buckets.clear();
  CHECK(predict_step(in).step_seconds == Approx(9.5));
}

TEST_CASE("a codec beats native below its crossover bandwidth, not above", "[perf][plan]") {
  const PlanModel wide = builtin_model("wide");
  const ComputeTimes compute = flat_compute(wide, 1e-3);
  StepSetup s;
  s.model = &wide;
  s.compute = &compute;
  s.ranks = 2;
  s.link = parse_link("10gbit");
  const Crossover c = crossover_bandwidth(s, "onebit", table_codec);
  REQUIRE(c.bandwidth);
  CHECK(c.wins_below);
  StepSetup slow = s, fast = s;
  slow.link.bandwidth = *c.bandwidth / 2;
  fast.link.bandwidth = *c.bandwidth * 2;
  CHECK(plan_algorithm(slow, "onebit", table_codec).step.step_seconds <
        plan_algorithm(slow, "native", table_codec).step.step_seconds);
  CHECK(plan_algorithm(fast, "onebit", table_codec).step.step_seconds >
        plan_algorithm(fast, "native", table_codec).step.step_seconds);
  // One rank: no communication at all.
  StepSetup one = s;
  one.ranks = 1;
  CHECK(plan_algorithm(one, "onebit", table_codec).step.step_seconds == Approx(compute.total()));
}

TEST_CASE("more ranks than cores: the codecs timed alone time-share the cores, each at cores / ranks of one",
          "[perf][plan]") {
  CHECK(codec_time_sharing(1, 2) == 1);
  CHECK(codec_time_sharing(2, 2) == 1);
  CHECK(codec_time_sharing(4, 2) == 2);
  CHECK(codec_time_sharing(3, 2) == Approx(1.5));
  CHECK_THROWS_WITH(codec_time_sharing(0, 2), Catch::Contains("ranks_here"));
  CHECK_THROWS_WITH(codec_time_sharing(2, 0), Catch::Contains("cores"));
  const CodecLookup shared = time_shared(table_codec, 2);
  const BucketCodec alone = table_codec("int8", 1 << 20), doubled = shared("int8", 1 << 20);
  CHECK(doubled.encode_seconds == Approx(2 * alone.encode_seconds));
  CHECK(doubled.decode_seconds == Approx(2 * alone.decode_seconds));
  CHECK(doubled.message_bytes == alone.message_bytes);
  const PlanModel wide = builtin_model("wide");
  const ComputeTimes compute = flat_compute(wide, 1e-3);
  StepSetup s;
  s.model = &wide;
  s.compute = &compute;
  s.ranks = 4;
  s.link = parse_link("100gbit");
  CHECK(plan_algorithm(s, "int8", shared).codec_seconds == Approx(2 * plan_algorithm(s, "int8", table_codec).codec_seconds));
  CHECK(plan_algorithm(s, "native", shared).step.step_seconds ==
        Approx(plan_algorithm(s, "native", table_codec).step.step_seconds));
}

TEST_CASE("the measured bucket overhead lengthens every bucket's all-reduce, on more than one rank only",
          "[perf][plan]") {
  const PlanModel lenet = builtin_model("lenet5");
  const ComputeTimes compute = flat_compute(lenet, 1e-4);
  StepSetup s = lenet_step(lenet, compute, 2, "10gbit");  // three buckets
  const AlgorithmPlan plain = plan_algorithm(s, "native", table_codec);
  StepSetup slow = s;
  slow.bucket_overhead = 1e-3;
  const AlgorithmPlan late = plan_algorithm(slow, "native", table_codec);
  CHECK(late.network_seconds == Approx(plain.network_seconds + 3e-3));
  // The last bucket is ready only when backward ends: its overhead is exposed whole.
  CHECK(late.step.step_seconds >= plain.step.step_seconds + 1e-3);
  CHECK(late.step.step_seconds <= plain.step.step_seconds + 3e-3 + 1e-12);
  StepSetup one = slow;
  one.ranks = 1;
  CHECK(plan_algorithm(one, "native", table_codec).step.step_seconds == Approx(compute.total()));
  slow.bucket_overhead = -1;
  CHECK_THROWS_WITH(plan_algorithm(slow, "native", table_codec), Catch::Contains("overhead"));
}

TEST_CASE("the bucket overhead is calibrated per family: native's for native, dlk's own for the others",
          "[perf][plan]") {
  const PlanModel lenet = builtin_model("lenet5");
  const ComputeTimes compute = flat_compute(lenet, 1e-4);
  StepSetup s = lenet_step(lenet, compute, 2, "10gbit");  // three buckets
  s.bucket_overhead = 1e-3;
  const AlgorithmPlan native_one = plan_algorithm(s, "native", table_codec);
  const AlgorithmPlan ring_one = plan_algorithm(s, "ring", table_codec);
  const AlgorithmPlan int8_one = plan_algorithm(s, "int8", table_codec);
  StepSetup split = s;
  split.own_bucket_overhead = 2e-4;
  // native keeps its own; ring and the codecs take dlk's, three buckets each.
  CHECK(plan_algorithm(split, "native", table_codec).network_seconds == Approx(native_one.network_seconds));
  CHECK(plan_algorithm(split, "ring", table_codec).network_seconds == Approx(ring_one.network_seconds - 3 * 8e-4));
  CHECK(plan_algorithm(split, "int8", table_codec).network_seconds == Approx(int8_one.network_seconds - 3 * 8e-4));
  // auto: each bucket by what it picks (the overhead does not change the pick).
  StepSetup none = split;
  none.bucket_overhead = 0;
  none.own_bucket_overhead = 0;
  const AlgorithmPlan picked = plan_algorithm(split, "auto", table_codec);
  double expected = plan_algorithm(none, "auto", table_codec).network_seconds;
  for (const std::string &a : picked.bucket_algorithms) expected += a == "native" ? 1e-3 : 2e-4;
  CHECK(picked.network_seconds == Approx(expected));
  split.own_bucket_overhead = -1;
  CHECK_THROWS_WITH(plan_algorithm(split, "ring", table_codec), Catch::Contains("overhead"));
  CHECK_NOTHROW(plan_algorithm(split, "native", table_codec));
}

TEST_CASE("an algorithm's own bucket overhead replaces its family's, and may be negative down to no network phase",
          "[perf][plan]") {
  const PlanModel lenet = builtin_model("lenet5");
  const ComputeTimes compute = flat_compute(lenet, 1e-4);
  StepSetup s = lenet_step(lenet, compute, 4, "10gbit");  // three buckets
  s.bucket_overhead = 1e-3;
  const AlgorithmPlan ring_family = plan_algorithm(s, "ring", table_codec);
  const AlgorithmPlan int8_family = plan_algorithm(s, "int8", table_codec);
  StepSetup own = s;
  own.algorithm_overhead = {{"ring", -2e-6}};
  // ring's three buckets take its own, 1.002 ms less each; int8 keeps the family's.
  CHECK(plan_algorithm(own, "ring", table_codec).network_seconds ==
        Approx(ring_family.network_seconds - 3 * 1.002e-3));
  CHECK(plan_algorithm(own, "int8", table_codec).network_seconds == Approx(int8_family.network_seconds));
  // A negative overhead larger than a bucket's wire time leaves it none: the
  // step is then compute and codec, never shorter than the step of one rank.
  own.algorithm_overhead = {{"ring", -10.0}};
  const AlgorithmPlan none = plan_algorithm(own, "ring", table_codec);
  CHECK(none.step.exposed_network_seconds == Approx(0).margin(1e-12));
  CHECK(none.step.step_seconds >= compute.total() - 1e-12);
  StepSetup one = own;
  one.ranks = 1;
  CHECK(plan_algorithm(one, "ring", table_codec).step.step_seconds == Approx(compute.total()));
  own.algorithm_overhead = {{"ring", NAN}};
  CHECK_THROWS_WITH(plan_algorithm(own, "ring", table_codec), Catch::Contains("overhead of ring"));
}

TEST_CASE("gradients under dlk-train's --min-compress-bytes go native in buckets of their own", "[perf][plan]") {
  const PlanModel lenet = builtin_model("lenet5");
  const std::uint64_t cap = train_default_bucket_bytes(lenet);
  CHECK(synchronizer_buckets(lenet, cap, 0).size() == synchronizer_buckets(lenet, cap).size());
  const std::vector<PlanBucket> split = synchronizer_buckets(lenet, cap, 16384);
  double dense = 0, all = 0;
  std::size_t previous = lenet.layers.size();
  for (const PlanBucket &b : split) {
    (b.dense ? dense : all) += b.bytes;
    CHECK(b.ready_layer <= previous);  // in the order backward completes them
    previous = b.ready_layer;
  }
  all += dense;
  CHECK(all == Approx(4.0 * static_cast<double>(lenet.parameters)));
  CHECK(dense == Approx(14504));  // every bias, conv1, conv2, fc3 (docs/training.md)

  const ComputeTimes compute = flat_compute(lenet, 1e-4);
  StepSetup s = lenet_step(lenet, compute, 2, "1gbit");  // three buckets
  // onebit's default is dlk-train's: 16 KiB, one more bucket, run native.
  const AlgorithmPlan onebit = plan_algorithm(s, "onebit", table_codec);
  CHECK(std::count(onebit.bucket_algorithms.begin(), onebit.bucket_algorithms.end(), "native") == 1);
  StepSetup off = s;
  off.min_compress_bytes = 0;
  const AlgorithmPlan compressed = plan_algorithm(off, "onebit", table_codec);
  CHECK(std::count(compressed.bucket_algorithms.begin(), compressed.bucket_algorithms.end(), "native") == 0);
  CHECK(onebit.wire_bytes > compressed.wire_bytes + 14504 * 0.9);
  // native, ring and ps have no compression to leave out; int8's default is 0.
  StepSetup on = s;
  on.min_compress_bytes = 16384;
  CHECK(plan_algorithm(on, "ring", table_codec).bucket_algorithms.size() == synchronizer_buckets(lenet, cap).size());
  CHECK(plan_algorithm(s, "int8", table_codec).bucket_algorithms.size() == synchronizer_buckets(lenet, cap).size());
  CHECK(plan_algorithm(on, "int8", table_codec).bucket_algorithms.size() == split.size());
}

TEST_CASE("an algorithm overhead list is read as ALGORITHM=SECONDS pairs and refused naming the bad part", "[perf][plan]") {
  const auto o = parse_algorithm_overheads("onebit=0.0012,ring=-3e-3");
  CHECK(o.size() == 2);
  CHECK(o.at("onebit") == Approx(0.0012));
  CHECK(o.at("ring") == Approx(-0.003));
  CHECK(parse_algorithm_overheads("").empty());
  for (const char *bad : {"onebit", "onebit=", "onebit=1ms", "nccl=1", "auto=1", "ring=inf", "ring=nan",
                          "ring=1e9", "ring=1,ring=2", "ring=1,", ",ring=1"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_algorithm_overheads(bad), Catch::Contains("--algorithm-overhead"));
  }
  CHECK_THROWS_WITH(parse_algorithm_overheads("ring=1,ring=2"), Catch::Contains("twice"));
  CHECK_THROWS_WITH(parse_algorithm_overheads("auto=1"), Catch::Contains("'auto'"));
}

TEST_CASE("the plan's two charts are well-formed SVG with their axes and series", "[perf][plan]") {
  std::vector<StepCurve> curves{{"native", {{1e8, 0.02}, {1e9, 0.005}}, {1.25e9, 0.004}},
                                {"onebit", {{1e8, 0.006}, {1e9, 0.005}}, {1.25e9, 0.005}}};
  const std::string a = render_svg(step_time_chart(curves, "step", "sub"));
  CHECK(test::xml_problem(a, "svg").empty());
  CHECK(a.find("link bandwidth (Gbit/s)") != std::string::npos);
  const std::string b = render_svg(step_roofline_chart(
      1e10, {{"1 Gbit", 1.25e8}, {"10 Gbit", 1.25e9}}, {{"native", 30, 3e9}, {"onebit", 900, 8e9}}, "roof", "sub"));
  CHECK(test::xml_problem(b, "svg").empty());
  CHECK(b.find("compute roof") != std::string::npos);
  CHECK(b.find("10 Gbit") != std::string::npos);
}

}  // namespace dlk::perf
