// dlk-perf as a user runs it: the JSON of each subcommand against its schema,
// the cache across runs, bad input. Runs the real program (DLK_PERF_EXE) with
// XDG_CACHE_HOME in a fresh directory; checks shapes and members, never speed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "perf/plan/plan_model.hpp"
#include "xml_well_formed.hpp"

using dlk::perf::test::xml_problem;

namespace {

struct Run {
  int status = -1;
  std::string out, err;
};

std::string slurp(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Sandbox {
  std::string dir;
  Sandbox() {
    char name[] = "/tmp/dlk-perf-cli-test-XXXXXX";
    dir = mkdtemp(name);
  }
  ~Sandbox() { std::system(("rm -rf '" + dir + "'").c_str()); }

  // Runs a shell command line with threads 1 and the cache in the sandbox;
  // its stdout in Run::out, its stderr in Run::err.
  Run run_command(const std::string &command) const {
    const std::string err = dir + "/stderr";
    Run r;
    FILE *pipe = popen(("XDG_CACHE_HOME='" + dir + "/cache' DLK_NUM_THREADS=1 " + command + " 2>'" + err + "'").c_str(),
                       "r");
    REQUIRE(pipe);
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    return r;
  }

  // Runs dlk-perf with `args` (shell words).
  Run run(const std::string &args) const { return run_command("'" DLK_PERF_EXE "' " + args); }

  // The same under mpirun with 2 ranks (as dlk-perf report launches it).
  Run run_under_mpirun(const std::string &args) const {
    return run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -n 2 --oversubscribe "
                       "--bind-to none '" DLK_PERF_EXE "' " + args);
  }

  // dlk-perf on a terminal (script(1) gives it one), its stdout to a file:
  // Run::out is what it wrote on the terminal, i.e. on stderr.
  Run run_on_terminal(const std::string &args) const {
    return run_command("script -qec \"'" DLK_PERF_EXE "' " + args + " >'" + dir + "/terminal-stdout'\" /dev/null");
  }
};

void check_number(const nlohmann::json &object, const char *key) {
  INFO(key);
  REQUIRE(object.contains(key));
  CHECK(object.at(key).is_number());
}

// The chart --svg wrote at `path`: well-formed SVG with each of `parts` in it.
void check_chart(const std::string &path, std::initializer_list<const char *> parts) {
  INFO(path);
  const std::string svg = slurp(path);
  CHECK(xml_problem(svg, "svg") == "");
  for (const char *part : parts) {
    INFO(part);
    CHECK(svg.find(part) != std::string::npos);
  }
}

// Runs `subcommand args --quiet --json --svg FILE` and returns its JSON
// document after checking the schema name and the chart.
nlohmann::json run_with_chart(const Sandbox &box, const std::string &subcommand, const std::string &args,
                              const std::string &schema, std::initializer_list<const char *> chart_parts) {
  const std::string svg = box.dir + "/" + subcommand + ".svg";
  const Run r = box.run(subcommand + " " + args + " --quiet --json --svg '" + svg + "'");
  INFO(subcommand + " " + args + "\n" + r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\r') == std::string::npos);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("schema") == schema);
  check_number(doc, "wall_seconds");
  for (const char *key : {"cpu", "isa", "threads", "caches", "clock_hz", "versions"}) {
    INFO(key);
    CHECK(doc.at("machine").contains(key));
  }
  check_chart(svg, chart_parts);
  return doc;
}

void check_ceilings_schema(const nlohmann::json &doc) {
  CHECK(doc.at("schema") == "dlk-perf/ceilings/1");
  for (const char *key : {"key", "measured_at", "version", "method", "backend"}) CHECK(doc.at(key).is_string());
  for (const char *key : {"brand", "microarchitecture", "isa"}) CHECK(doc.at("cpu").at(key).is_string());
  check_number(doc.at("cpu"), "family");
  check_number(doc, "clock_hz");
  CHECK(doc.at("threads") == 1);
  REQUIRE(doc.at("compute").is_array());
  REQUIRE_FALSE(doc.at("compute").empty());
  for (const auto &c : doc.at("compute")) {
    for (const char *key : {"dtype", "isa", "instruction", "unit"}) CHECK(c.at(key).is_string());
    for (const char *key : {"value", "median", "min", "runs", "theoretical_per_cycle_per_core", "theoretical"})
      check_number(c, key);
    CHECK(c.at("value").get<double>() > 0);
  }
  CHECK(doc.at("compute")[0].at("dtype") == "f32");
  REQUIRE(doc.at("memory").is_array());
  CHECK(doc.at("memory").back().at("level") == "DRAM");
  for (const auto &m : doc.at("memory")) {
    CHECK(m.at("found").is_boolean());
    for (const char *key : {"value", "working_set_min", "working_set_max", "theoretical"}) check_number(m, key);
  }
  REQUIRE_FALSE(doc.at("sweep").empty());
  for (const auto &p : doc.at("sweep")) check_number(p, "bytes_per_second");
  CHECK(doc.at("source").at("from_cache").is_boolean());
  CHECK(doc.at("source").at("note").is_string());
  for (const char *key : {"cpu", "isa", "threads", "caches", "versions", "backend"})
    CHECK(doc.at("machine").contains(key));
  CHECK(doc.at("warnings").is_array());
}

}  // namespace

TEST_CASE("ceilings --json follows its schema, then text and JSON come from the cache", "[perf][cli]") {
  Sandbox box;
  const Run first = box.run("ceilings --json --svg '" + box.dir + "/ceilings.svg'");
  INFO(first.err);
  REQUIRE(first.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(first.out);
  check_ceilings_schema(doc);
  CHECK(doc.at("source").at("from_cache") == false);
  CHECK(slurp(box.dir + "/ceilings.svg").rfind("<?xml", 0) == 0);
  CHECK(first.err.find('\r') == std::string::npos);  // no progress when stderr is a file

  const nlohmann::json again = nlohmann::json::parse(box.run("ceilings --json").out);
  CHECK(again.at("source").at("from_cache") == true);
  CHECK(again.at("measured_at") == doc.at("measured_at"));

  // Text, from the same cache.
  const Run text = box.run("ceilings");
  REQUIRE(text.status == 0);
  for (const char *part : {"machine\n", "CPU:", "caches:", "clock:", "best G/s", "theory G/s", "GB/s", "DRAM",
                           "cached in"})
    CHECK(text.out.find(part) != std::string::npos);

  // A corrupt cache file is measured again, not trusted.
  const std::string note = again.at("source").at("note");
  const std::string path = note.substr(10, note.find(',') - 10);  // "cached in <path>, measured ..."
  std::ofstream(path, std::ios::trunc) << "{ \"schema\": \"dlk-perf/ceilings/1\", \"compute\": [";
  const Run third = box.run("ceilings --json");
  REQUIRE(third.status == 0);
  const nlohmann::json remeasured = nlohmann::json::parse(third.out);
  CHECK(remeasured.at("source").at("from_cache") == false);
  CHECK(remeasured.at("source").at("note").get<std::string>().find("corrupt") != std::string::npos);
}

TEST_CASE("bad input names what is wrong and the valid choices", "[perf][cli]") {
  Sandbox box;
  Run r = box.run("ceilings --backend bogus");
  CHECK(r.status != 0);
  CHECK(r.err.find("bogus") != std::string::npos);
  CHECK(r.err.find("cpu") != std::string::npos);
  r = box.run("nosuchcommand");
  CHECK(r.status != 0);
  CHECK(r.err.find("nosuchcommand") != std::string::npos);
  r = box.run("ceilings --no-such-option");
  CHECK(r.status != 0);
  CHECK(r.err.find("--no-such-option") != std::string::npos);
  r = box.run("conv --sets lenet5 --layers conv9");
  CHECK(r.status != 0);
  CHECK(r.err.find("conv9") != std::string::npos);
  CHECK(r.err.find("lenet5") != std::string::npos);
  r = box.run("conv --onednn-max-isa avx1024");
  CHECK(r.status != 0);
  CHECK(r.err.find("avx512_core_bf16") != std::string::npos);
  r = box.run("gemm --dtypes f64");
  CHECK(r.status != 0);
  CHECK(r.err.find("f64") != std::string::npos);
  CHECK(r.err.find("bf16") != std::string::npos);
  r = box.run("report --backends tpu");
  CHECK(r.status != 0);
  CHECK(r.err.find("tpu") != std::string::npos);
  CHECK(r.err.find("fpga_sim") != std::string::npos);
  // A backend named explicitly that cannot run here is an error saying why
  // (the report skips it with the reason when it is not named: see below).
  r = box.run("ceilings --backend cuda --json");
  if (r.status != 0)
    CHECK(r.err.find("cuda") != std::string::npos);
  else
    CHECK(nlohmann::json::parse(r.out).at("backend") == "cuda");  // a GPU is there
  if (box.run("--help").out.find("comm") != std::string::npos) {  // a unit: comm's sizes
    r = box.run("comm -e 64Q");
    CHECK(r.status != 0);
    CHECK(r.err.find("q unit not recognized") != std::string::npos);
    CHECK(r.err.find("mib") != std::string::npos);
  }
}

TEST_CASE("report --quick --json follows its schema", "[perf][cli]") {
  Sandbox box;
  const Run r = box.run("report --quick --quiet --json --svg '" + box.dir + "/report.svg'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(slurp(box.dir + "/report.svg").rfind("<?xml", 0) == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("schema") == "dlk-perf/report/2");
  CHECK(doc.at("dlk").at("threads") == 1);
  CHECK(doc.at("dlk").at("quick") == true);
  for (const char *key : {"cpu", "isa", "caches", "versions", "peers", "gpu"}) CHECK(doc.at("machine").contains(key));
  CHECK(doc.at("ceilings").at("from_cache").is_boolean());
  CHECK(doc.at("ceilings").at("compute").at(0).at("dtype") == "f32");
  CHECK(doc.at("ceilings").at("memory").back().at("level") == "DRAM");

  // Every backend is listed: measured, or skipped with the reason.
  REQUIRE(doc.at("backends").size() == 3);
  for (const auto &b : doc.at("backends")) {
    INFO(b.dump());
    if (b.at("measured") == true) CHECK(b.at("device").is_string());
    else CHECK_FALSE(b.at("reason").get<std::string>().empty());
  }
  CHECK(doc.at("backends").at(0).at("name") == "cpu");
  CHECK(doc.at("backends").at(0).at("measured") == true);

  // The CPU has every op of the tour, each with its roof and its peer.
  std::set<std::string> cpu_points;
  for (const auto &p : doc.at("points")) {
    INFO(p.dump());
    for (const char *key : {"backend", "op", "dtype", "shape", "bound", "memory_level", "implementation"})
      CHECK(p.at(key).is_string());
    for (const char *key : {"flops", "bytes", "intensity", "seconds", "flops_per_second", "roof_flops_per_second",
                            "percent_of_roof"})
      check_number(p, key);
    // Every point has its peer but the convolutions oneDNN's f32 peer cannot take.
    const bool peerless = p.at("op") == "conv_fwd" && p.at("dtype") != "f32";
    CHECK(p.at("peer").is_null() == peerless);
    if (!peerless)
      for (const char *key : {"peer_flops_per_second", "ratio_to_peer"}) check_number(p, key);
    CHECK(p.at("flops_per_second").get<double>() > 0);
    if (p.at("backend") == "cpu") cpu_points.insert(p.at("op").get<std::string>() + " " + p.at("dtype").get<std::string>());
  }
  for (const char *point : {"gemm f32", "gemm bf16", "gemm int8", "conv_fwd f32", "conv_fwd bf16", "conv_fwd int8",
                            "pool_fwd f32"})
    CHECK(cpu_points.count(point) == 1);
  CHECK(doc.at("skipped").is_array());

  REQUIRE(doc.at("codecs").at("points").size() == 18);  // 6 codecs x encode, decode, decode_add
  for (const auto &p : doc.at("codecs").at("points")) check_number(p, "percent_of_roof");

  // The all-reduce ran under mpirun, or says why not.
  const nlohmann::json &allreduce = doc.at("allreduce");
  if (allreduce.at("ran") == true) {
    CHECK(allreduce.at("ranks") == 2);
    CHECK_FALSE(allreduce.at("points").empty());
    CHECK_FALSE(allreduce.at("fits").empty());
  } else {
    CHECK_FALSE(allreduce.at("reason").get<std::string>().empty());
  }

  // The verdict: each CPU op and each all-reduce algorithm, bound and distance to its roof.
  std::set<std::string> subjects;
  for (const auto &v : doc.at("verdict")) {
    INFO(v.dump());
    const std::string bound = v.at("bound");
    CHECK((bound == "compute" || bound == "memory" || bound.rfind("link", 0) == 0 || bound == "codec"));
    check_number(v, "percent_of_roof");
    subjects.insert(v.at("subject"));
  }
  CHECK(subjects.count("cpu") == 1);
  if (allreduce.at("ran") == true) CHECK(subjects.count("allreduce MPI_Allreduce") == 1);
  CHECK(doc.at("warnings").is_array());
  check_number(doc, "wall_seconds");
}

TEST_CASE("each compute subcommand draws its points on the roofline and follows its JSON schema", "[perf][cli]") {
  Sandbox box;
  nlohmann::json doc = run_with_chart(box, "roofline", "--sizes 64 --dram-mib 8 --min-seconds 0.01",
                                      "dlk-perf/roofline/1",
                                      {"dlk-perf roofline", "arithmetic intensity", "DRAM read", "dlk cpu",
                                       "peer: openblas", "gemm f32 64"});
  CHECK(doc.at("dlk").at("backend") == "cpu");
  CHECK(doc.at("peer").at("name") == "openblas");
  check_number(doc.at("roof"), "ridge_intensity");
  REQUIRE(doc.at("points").size() == 2);  // dlk and OpenBLAS at the one size
  for (const auto &p : doc.at("points")) {
    for (const char *key : {"m", "flops", "bytes", "intensity", "seconds", "flops_per_second",
                            "roof_flops_per_second", "percent_of_roof"})
      check_number(p, key);
    CHECK(p.at("bound").is_string());
  }
  check_number(doc.at("points").at(0), "ratio_to_peer");

  doc = run_with_chart(box, "gemm", "--shapes small --max-gflop 0.001 --dtypes f32,int8 --min-seconds 0.01 --min-samples 1",
                       "dlk-perf/gemm/1",
                       {"dlk-perf gemm", "arithmetic intensity", "int8 avx512 peak", "peer: openblas", "peer: onednn"});
  CHECK(doc.at("peers").at(0).at("name") == "openblas");
  REQUIRE_FALSE(doc.at("peaks").empty());
  check_number(doc.at("peaks").at(0), "fp32_flops_per_second");
  REQUIRE_FALSE(doc.at("points").empty());
  for (const auto &p : doc.at("points")) {
    for (const char *key : {"m", "n", "k", "threads", "dlk_ops_per_second", "onednn_ops_per_second",
                            "ratio_to_onednn", "percent_of_peak"})
      check_number(p, key);
    CHECK(p.at("openblas_ops_per_second").is_number() == (p.at("dtype") == "f32"));
  }

  doc = run_with_chart(box, "conv",
                       "--sets lenet5 --dtypes f32,int8,int8_u8 --passes fwd,bwd_data --min-seconds 0.01 "
                       "--min-samples 1",
                       "dlk-perf/conv/4",
                       {"dlk-perf conv", "arithmetic intensity", "peer: onednn plain", "conv2 f32 fwd n64",
                        "conv2 int8 fwd n64", "conv2 int8_u8 fwd n64"});
  for (const char *key : {"fp32_flops_per_second", "bf16_flops_per_second", "int8_ops_per_second"})
    check_number(doc.at("peak"), key);
  for (const char *key : {"version", "max_isa", "effective_isa"}) CHECK(doc.at("onednn").at(key).is_string());
  CHECK(doc.at("onednn").at("max_isa") == "all");
  // int8 backward data is named as not measured, not invented.
  REQUIRE(doc.at("not_measured").size() == 2);
  CHECK(doc.at("not_measured").at(0).get<std::string>().find("int8 bwd_data") == 0);
  CHECK(doc.at("not_measured").at(1).get<std::string>().find("int8_u8 bwd_data") == 0);
  // f32 every pass asked for, int8 and int8_u8 forward only: lenet5's two layers.
  REQUIRE(doc.at("points").size() == 8);
  const auto check_any = [](const nlohmann::json &p) {
    for (const char *key : {"batch", "flops", "dlk_flops_per_second", "percent_of_peak", "onednn_any_flops_per_second",
                            "onednn_any_percent_of_peak", "ratio_to_onednn_any", "onednn_reorder_seconds",
                            "onednn_weights_reorder_seconds", "ratio_to_onednn_any_with_data_reorders",
                            "ratio_to_onednn_any_with_reorders"})
      check_number(p, key);
    CHECK(p.at("onednn_any_implementation").is_string());
  };
  for (const auto &p : doc.at("points")) {
    INFO(p.dump());
    check_any(p);
    CHECK(p.at("format") == "nchw");
    CHECK((p.at("dtype") == "f32" || p.at("pass") == "fwd"));
    // The forward and backward data again with their weights packed before the
    // loop; backward weights reads no weights.
    if (p.at("pass") != "bwd_weights") {
      check_number(p, "dlk_packed_seconds");
      check_number(p, "packed_ratio_to_onednn_any");
      CHECK(p.at("dlk_packed_implementation").is_string());
    } else {
      CHECK(p.at("dlk_packed_seconds").is_null());
      CHECK(p.at("dlk_packed_implementation").is_null());
    }
    // oneDNN 2.6 runs int8 on plain nchw with its reference code only: not timed.
    if (p.at("dtype") == "f32") {
      check_number(p, "ratio_to_onednn_plain");
    } else {
      CHECK(p.at("ratio_to_onednn_plain").is_null());
      CHECK(p.at("onednn_plain_implementation").get<std::string>().find("not timed") != std::string::npos);
    }
  }
  // NHWC: dlk's call and both oneDNN forms on nhwc / ohwi memory.
  doc = run_with_chart(box, "conv",
                       "--sets lenet5 --layers conv2 --dtypes f32,int8 --passes fwd --formats nhwc "
                       "--min-seconds 0.01 --min-samples 1",
                       "dlk-perf/conv/4", {"dlk-perf conv: nhwc", "conv2 f32 fwd n64 nhwc", "conv2 int8 fwd n64 nhwc"});
  REQUIRE(doc.at("points").size() == 2);
  for (const auto &p : doc.at("points")) {
    INFO(p.dump());
    check_any(p);
    CHECK(p.at("format") == "nhwc");
  }

  doc = run_with_chart(box, "pool", "--batches 1 --passes fwd --min-seconds 0.01", "dlk-perf/pool/1",
                       {"dlk-perf pool", "arithmetic intensity", "peer: onednn"});
  REQUIRE_FALSE(doc.at("points").empty());
  for (const auto &p : doc.at("points"))
    for (const char *key : {"batch", "bytes", "dlk_bytes_per_second", "onednn_bytes_per_second", "ratio_to_onednn"})
      check_number(p, key);
}

TEST_CASE("compress draws its codecs under the read roof and follows its JSON schema", "[perf][cli]") {
  Sandbox box;
  const nlohmann::json doc =
      run_with_chart(box, "compress", "--sizes 1 --algorithms onebit,int8 --min-seconds 0.01", "dlk-perf/compress/1",
                     {"dlk-perf compress", "working set (bytes)", "GB/s", "roof: read", "onebit encode",
                      "int8 decode_add"});
  CHECK(doc.at("threads") == 1);
  REQUIRE(doc.at("points").size() == 6);  // 2 codecs x encode, decode, decode_add
  for (const auto &p : doc.at("points"))
    for (const char *key : {"size_bytes", "compression_ratio", "seconds", "bytes_per_second", "working_set_bytes",
                            "roof_bytes_per_second", "percent_of_roof"})
      check_number(p, key);
}

namespace {

void check_resnet50_schema(const nlohmann::json &doc, bool simulated) {
  for (const char *key : {"version", "backend", "device", "isa"}) CHECK(doc.at("dlk").at(key).is_string());
  CHECK(doc.at("dlk").at("threads") == 1);
  CHECK(doc.at("peer").at("backend") == "cpu");
  CHECK(doc.at("model").at("dtype") == "int8");
  CHECK(doc.at("model").at("batch") == 1);
  CHECK(doc.at("passes") == 1);
  for (const char *part : {"host", "peer_host"})
    for (const char *key : {"seconds", "seconds_min", "seconds_max", "cpu_seconds"}) check_number(doc.at(part), key);
  check_number(doc, "ratio_to_peer");
  check_number(doc.at("work"), "flops");
  check_number(doc.at("work"), "bytes");
  CHECK(doc.at("work").at("flops").get<double>() > 7e9);  // about 8.2 GOP at 224x224
  REQUIRE(doc.at("layers").size() == doc.at("model").at("ops").get<size_t>());
  double flops = 0;
  for (const auto &l : doc.at("layers")) {
    INFO(l.dump());
    CHECK(l.at("name").is_string());
    CHECK(l.at("implementation").is_string());
    check_number(l, "bytes");
    flops += l.at("flops").get<double>();
    for (const char *key : {"sim_macs", "sim_cycles", "sim_seconds", "sim_mac_utilization", "sim_dram_bytes"})
      CHECK(l.at(key).is_number() == simulated);
    CHECK(l.at("sim_bound").is_string() == simulated);
  }
  CHECK(flops == Approx(doc.at("work").at("flops").get<double>()));
  CHECK(doc.at("simulated").is_null() == !simulated);
  if (simulated) {
    for (const char *key : {"seconds", "cycles", "macs", "mac_utilization", "dram_bytes", "dram_bound_ops"})
      check_number(doc.at("simulated"), key);
    CHECK(doc.at("simulated").at("mac_utilization").get<double>() <= 1.0);
  }
}

}  // namespace

TEST_CASE("resnet50 --json follows its schema on cpu and fpga_sim, and draws the pass", "[perf][cli]") {
  Sandbox box;
  nlohmann::json doc = run_with_chart(box, "resnet50", "--passes 1 --backend cpu", "dlk-perf/resnet50/1",
                                      {"dlk-perf resnet50", "arithmetic intensity", "resnet50 pass"});
  CHECK(doc.at("dlk").at("backend") == "cpu");
  check_resnet50_schema(doc, false);
  doc = run_with_chart(box, "resnet50", "--passes 1 --backend fpga_sim", "dlk-perf/resnet50/1",
                       {"dlk-perf resnet50", "reported by the backend", "(simulated)", "peer: dlk cpu"});
  CHECK(doc.at("dlk").at("backend") == "fpga_sim");
  check_resnet50_schema(doc, true);
}

TEST_CASE("comm under mpirun draws its network chart and follows its JSON schema", "[perf][cli]") {
  Sandbox box;
  if (box.run("--help").out.find("comm") == std::string::npos || std::system("command -v mpirun >/dev/null") != 0) {
    WARN("SKIP: dlk-perf has no comm subcommand (no MPI) or mpirun is not on PATH");
    return;
  }
  const std::string svg = box.dir + "/comm.svg";
  const Run r = box.run_under_mpirun("comm -e 16K --algorithms MPI_Allreduce,ring,onebit --min-seconds 0.01 "
                                     "--max-calls 3 --quiet --json --svg '" + svg + "'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("schema") == "dlk-perf/comm/1");
  CHECK(doc.at("ranks") == 2);
  CHECK(doc.at("machine").at("mpi").at("ranks") == 2);
  CHECK(doc.at("machine").at("mpi").at("library").get<std::string>().size() > 0);
  CHECK(doc.at("points").size() == 2 * 3);  // 4 and 16 KiB x 3 algorithms
  REQUIRE(doc.at("fits").size() == 3);
  for (const auto &f : doc.at("fits")) check_number(f, "alpha_seconds");
  check_chart(svg, {"dlk-perf comm", "message size (bytes)", "microseconds", "peer: MPI_Allreduce", "ring: ",
                    "onebit"});
}

TEST_CASE("comm with one size says an alpha-beta fit needs two, in text and JSON", "[perf][cli]") {
  Sandbox box;
  if (box.run("--help").out.find("comm") == std::string::npos || std::system("command -v mpirun >/dev/null") != 0) {
    WARN("SKIP: dlk-perf has no comm subcommand (no MPI) or mpirun is not on PATH");
    return;
  }
  const std::string args = "comm -b 8K -e 8K --algorithms ring,onebit --min-seconds 0.01 --max-calls 3 --quiet";
  const Run text = box.run_under_mpirun(args);
  INFO(text.err);
  REQUIRE(text.status == 0);
  CHECK(text.out.find("needs two sizes or more") != std::string::npos);
  CHECK(text.out.find("bandwidth GB/s") == std::string::npos);  // no table of zeros
  const Run json = box.run_under_mpirun(args + " --json");
  REQUIRE(json.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  CHECK(doc.at("points").size() == 2);
  CHECK(doc.at("fits").empty());
  CHECK(doc.at("fits_note").get<std::string>().find("two sizes") != std::string::npos);
}

TEST_CASE("plan --json follows its schema and draws both of its charts", "[perf][cli][plan]") {
  Sandbox box;
  const std::string roof = box.dir + "/plan_roofline.svg";
  const nlohmann::json doc = run_with_chart(
      box, "plan", "--model lenet5 --batch 8 --ranks 2 --link 1gbit --min-seconds 0.005 --scaling 1,2 --roofline-svg '" +
                       roof + "'",
      "dlk-perf/plan/1", {"dlk-perf plan: step time against link bandwidth", "link bandwidth (Gbit/s)", "native", "onebit"});
  check_chart(roof, {"compute x network roofline", "compute roof", "1 Gbit", "FLOP per byte"});
  CHECK(doc.at("model").at("name") == "lenet5");
  CHECK(doc.at("model").at("parameters") == 61706);
  CHECK(doc.at("ranks") == 2);
  CHECK(doc.at("link").at("bandwidth").get<double>() == Approx(125e6));
  CHECK(doc.at("compute").at("source") == "measured");
  CHECK(doc.at("compute").at("layers").size() == 12);
  REQUIRE(doc.at("steps").size() == 10);  // every algorithm by default
  for (const auto &s : doc.at("steps")) {
    INFO(s.dump());
    for (const char *key : {"step_seconds", "compute_seconds", "contention_seconds", "exposed_network_seconds",
                            "exposed_codec_seconds", "network_seconds", "codec_seconds", "wire_bytes",
                            "samples_per_second", "speedup_vs_native"})
      check_number(s, key);
    const double parts = s.at("compute_seconds").get<double>() + s.at("contention_seconds").get<double>() +
                         s.at("exposed_network_seconds").get<double>() + s.at("exposed_codec_seconds").get<double>();
    CHECK(parts == Approx(s.at("step_seconds").get<double>()));
  }
  CHECK(doc.at("winner").is_string());
  CHECK(doc.at("crossovers").size() == 9);  // every algorithm but native
  REQUIRE(doc.at("scaling").size() == 2);
  CHECK(doc.at("scaling")[0].at("ranks") == 1);
  // dlk-train's default cap, a quarter of lenet5's 247 KB (at least 64 KiB): three buckets.
  CHECK(doc.at("bucket_bytes") == 65536);
  CHECK(doc.at("buckets").size() == 3);
  // No overhead given: 0 for both families.
  CHECK(doc.at("bucket_overhead_seconds") == 0);
  CHECK(doc.at("own_bucket_overhead_seconds") == 0);
}

TEST_CASE("plan reads a dlk-train/describe/1 file and plans from given ceilings", "[perf][cli][plan]") {
  Sandbox box;
  const std::string file = box.dir + "/vgg_small.json";
  std::ofstream(file) << dlk::perf::model_json(dlk::perf::builtin_model("vgg_small")).dump(1);
  const Run r = box.run("plan --model '" + file + "' --batch 256 --ranks 4 --compute peak=19.5TFLOP/s,bandwidth=1.5TB/s "
                        "--link bandwidth=12.5GB/s,latency=5us --algorithms native,onebit,topk --scaling 4 --json --quiet");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("model").at("name") == "vgg_small");
  CHECK(doc.at("compute").at("source") == "roofline");
  CHECK(doc.at("steps").size() == 3);
  CHECK(doc.at("link").at("latency_seconds").get<double>() == Approx(5e-6));
}

TEST_CASE("plan refuses an unknown model, a link that does not parse, P < 1 and a bad model file", "[perf][cli][plan]") {
  Sandbox box;
  const std::string quick = " --compute peak=1TFLOP/s,bandwidth=100GB/s --quiet";
  Run r = box.run("plan --model alexnet" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("--model is 'alexnet'") != std::string::npos);
  CHECK(r.err.find("lenet5, vgg_small, wide, resnet50, transformer") != std::string::npos);
  r = box.run("plan --link 10gbyte" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("--link '10gbyte'") != std::string::npos);
  r = box.run("plan --link bandwidth=fast,latency=5us" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("bandwidth") != std::string::npos);
  r = box.run("plan --ranks 0" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("--ranks is 0: it must be at least 1") != std::string::npos);
  r = box.run("plan --ranks 3 --batch 64" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("does not split evenly") != std::string::npos);
  r = box.run("plan --compute peak=1TFLOP/s --quiet");
  CHECK(r.status != 0);
  CHECK(r.err.find("--compute") != std::string::npos);
  const std::string file = box.dir + "/bad.json";
  std::ofstream(file) << R"({"schema": "dlk-train/describe/1", "model": "x", "input": [1, 28, 28]})";
  r = box.run("plan --model '" + file + "'" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("plan model JSON") != std::string::npos);
  r = box.run("plan --algorithms nccl" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("nccl") != std::string::npos);
  r = box.run("plan --own-bucket-overhead -0.001" + quick);
  CHECK(r.status != 0);
  CHECK(r.err.find("--own-bucket-overhead") != std::string::npos);
}

TEST_CASE("plan takes the bucket overhead per family and reports both", "[perf][cli][plan]") {
  Sandbox box;
  const std::string quick = " --model lenet5 --compute peak=1TFLOP/s,bandwidth=100GB/s --link 10gbit "
                            "--algorithms native,ring --scaling 2 --quiet --json";
  const auto plan = [&](const std::string &overheads) {
    const Run r = box.run("plan" + quick + overheads);
    INFO(r.err);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json one = plan(" --bucket-overhead 0.001");
  CHECK(one.at("own_bucket_overhead_seconds").get<double>() == Approx(0.001));
  const nlohmann::json two = plan(" --bucket-overhead 0.001 --own-bucket-overhead 0.0002");
  CHECK(two.at("bucket_overhead_seconds").get<double>() == Approx(0.001));
  CHECK(two.at("own_bucket_overhead_seconds").get<double>() == Approx(0.0002));
  // Three buckets: ring's network 3 x 0.8 ms shorter, native's the same.
  CHECK(two.at("steps")[0].at("network_seconds").get<double>() ==
        Approx(one.at("steps")[0].at("network_seconds").get<double>()));
  CHECK(two.at("steps")[1].at("network_seconds").get<double>() ==
        Approx(one.at("steps")[1].at("network_seconds").get<double>() - 3 * 8e-4));
  // ring's own calibration replaces the family's; native keeps its own.
  const nlohmann::json own = plan(" --bucket-overhead 0.001 --algorithm-overhead ring=-0.00001");
  CHECK(own.at("algorithm_overhead_seconds").at("ring").get<double>() == Approx(-1e-5));
  CHECK(own.at("steps")[0].at("network_seconds").get<double>() ==
        Approx(one.at("steps")[0].at("network_seconds").get<double>()));
  CHECK(own.at("steps")[1].at("network_seconds").get<double>() ==
        Approx(one.at("steps")[1].at("network_seconds").get<double>() - 3 * 1.01e-3));
  const Run bad = box.run("plan" + quick + " --algorithm-overhead ring=fast");
  CHECK(bad.status != 0);
  CHECK(bad.err.find("--algorithm-overhead ring=fast") != std::string::npos);
}

TEST_CASE("progress goes to stderr on a terminal only, and never with --quiet", "[perf][cli]") {
  Sandbox box;
  if (std::system("command -v script >/dev/null") != 0) {
    WARN("SKIP: script (util-linux) is not installed: no terminal to run dlk-perf on");
    return;
  }
  // script(1) gives the command a terminal; stdout goes to a file, so what
  // script prints is what dlk-perf wrote on stderr.
  const std::string command = "compress --sizes 1 --algorithms onebit,int8 --min-seconds 0.01";
  const Run shown = box.run_on_terminal(command);
  INFO(shown.out);
  CHECK(shown.out.find("%] onebit at 1 MiB") != std::string::npos);
  CHECK(shown.out.find('\r') != std::string::npos);
  const Run quiet = box.run_on_terminal(command + " --quiet");
  INFO(quiet.out);
  CHECK(quiet.out.find("%]") == std::string::npos);
}
