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

  // Runs dlk-perf with `args` (shell words), threads 1, the cache in the sandbox.
  Run run(const std::string &args) const {
    const std::string err = dir + "/stderr";
    const std::string command = "XDG_CACHE_HOME='" + dir + "/cache' DLK_NUM_THREADS=1 '" DLK_PERF_EXE "' " + args +
                                " 2>'" + err + "'";
    Run r;
    FILE *pipe = popen(command.c_str(), "r");
    REQUIRE(pipe);
    char buffer[4096];
    size_t n;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) r.out.append(buffer, n);
    const int status = pclose(pipe);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.err = slurp(err);
    return r;
  }
};

void check_number(const nlohmann::json &object, const char *key) {
  INFO(key);
  REQUIRE(object.contains(key));
  CHECK(object.at(key).is_number());
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
}

TEST_CASE("report --quick --json follows its schema", "[perf][cli]") {
  Sandbox box;
  const Run r = box.run("report --quick --quiet --json --svg '" + box.dir + "/report.svg'");
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.err.find('\r') == std::string::npos);
  CHECK(slurp(box.dir + "/report.svg").rfind("<?xml", 0) == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  CHECK(doc.at("schema") == "dlk-perf/report/1");
  CHECK(doc.at("dlk").at("threads") == 1);
  CHECK(doc.at("dlk").at("quick") == true);
  for (const char *key : {"cpu", "isa", "caches", "versions", "peers"}) CHECK(doc.at("machine").contains(key));
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
    CHECK((bound == "compute" || bound == "memory" || bound.rfind("network", 0) == 0 ||
           bound == "compute (codec)"));
    check_number(v, "percent_of_roof");
    subjects.insert(v.at("subject"));
  }
  CHECK(subjects.count("cpu") == 1);
  if (allreduce.at("ran") == true) CHECK(subjects.count("allreduce MPI_Allreduce") == 1);
  CHECK(doc.at("warnings").is_array());
  check_number(doc, "wall_seconds");
}
