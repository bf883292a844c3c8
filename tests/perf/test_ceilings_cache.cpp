#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

#include "perf/ceilings/ceilings_cache.hpp"
#include "perf/ceilings/machine_ceilings.hpp"

using namespace dlk::perf;

namespace {

// XDG_CACHE_HOME pointed at a fresh directory for the test's lifetime.
struct TemporaryCacheHome {
  std::string dir;
  std::string old;
  bool had_old = false;
  TemporaryCacheHome() {
    char name[] = "/tmp/dlk-perf-cache-test-XXXXXX";
    dir = mkdtemp(name);
    if (const char *v = std::getenv("XDG_CACHE_HOME")) had_old = true, old = v;
    setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  }
  ~TemporaryCacheHome() {
    if (had_old) setenv("XDG_CACHE_HOME", old.c_str(), 1);
    else unsetenv("XDG_CACHE_HOME");
    std::system(("rm -rf '" + dir + "'").c_str());
  }
};

MachineCeilings sample(int threads) {
  MachineCeilings m;
  m.key = ceilings_cache_key(threads);
  m.measured_at = "2026-11-22T20:00:00Z";
  m.cpu = "AMD EPYC";
  m.family = 25;
  m.model = 17;
  m.microarchitecture = "Zen 4";
  m.isa = "avx512f";
  m.threads = threads;
  m.version = "0.1.0";
  m.clock_hz = 3.6e9;
  m.caches = {32768, 1 << 20, 32 << 20};
  m.compute.push_back({"f32", "avx512", "vfmadd231ps zmm", 32, 230e9, {200e9, 150e9, 220e9, 41}});
  MemoryCeiling dram;
  dram.level = "DRAM";
  dram.found = true;
  dram.bytes_per_second = 30e9;
  dram.working_set_min = 64 << 20;
  dram.working_set_max = 256 << 20;
  m.memory.push_back(dram);
  m.sweep.push_back({256 << 20, 30e9, 28e9});
  m.method = "test";
  return m;
}

void overwrite(const std::string &path, const std::string &text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
}

}  // namespace

TEST_CASE("the cache directory follows XDG_CACHE_HOME, else HOME", "[perf][cache]") {
  TemporaryCacheHome home;
  CHECK(ceilings_cache_directory() == home.dir + "/dlk");
  setenv("XDG_CACHE_HOME", "relative/ignored", 1);  // the spec ignores relative paths
  const char *user_home = std::getenv("HOME");
  if (user_home && user_home[0]) CHECK(ceilings_cache_directory() == std::string(user_home) + "/.cache/dlk");
}

TEST_CASE("the key names CPU, ISA, threads and version; files differ by key", "[perf][cache]") {
  const std::string k1 = ceilings_cache_key(1), k2 = ceilings_cache_key(2);
  CHECK(k1 != k2);
  CHECK(k1.find("threads=1") != std::string::npos);
  CHECK(k1.find("dlk=") != std::string::npos);
  CHECK(k1.find("isa=") != std::string::npos);
  CHECK(ceilings_cache_file("/d", k1) != ceilings_cache_file("/d", k2));
}

TEST_CASE("stored ceilings come back as they were", "[perf][cache]") {
  TemporaryCacheHome home;
  const MachineCeilings m = sample(2);
  const std::string path = store_cached_ceilings(m);
  CHECK(path.rfind(home.dir, 0) == 0);
  const CacheLookup lookup = load_cached_ceilings(m.key);
  REQUIRE(lookup.ceilings);
  CHECK(lookup.ceilings->measured_at == m.measured_at);
  CHECK(lookup.ceilings->compute_ceiling("f32")->value() == 220e9);
  CHECK(lookup.ceilings->memory_ceiling("DRAM")->bytes_per_second == 30e9);
  CHECK(to_json(*lookup.ceilings) == to_json(m));
}

TEST_CASE("a missing, corrupt or foreign cache file is not trusted", "[perf][cache]") {
  TemporaryCacheHome home;
  const MachineCeilings m = sample(2);
  CHECK(load_cached_ceilings(m.key).problem == "none yet");
  const std::string path = store_cached_ceilings(m);

  overwrite(path, "{\"schema\": \"dlk-perf/ceilings/1\", \"key\": ");  // truncated
  CacheLookup l = load_cached_ceilings(m.key);
  CHECK_FALSE(l.ceilings);
  CHECK(l.problem.rfind("corrupt", 0) == 0);

  nlohmann::ordered_json doc = to_json(m);
  doc["compute"][0]["value"] = -1.0;
  overwrite(path, doc.dump());
  l = load_cached_ceilings(m.key);
  CHECK_FALSE(l.ceilings);
  CHECK(l.problem.find("value") != std::string::npos);

  doc = to_json(m);
  doc["schema"] = "dlk-perf/ceilings/0";
  overwrite(path, doc.dump());
  CHECK_FALSE(load_cached_ceilings(m.key).ceilings);

  doc = to_json(m);
  doc.erase("clock_hz");
  overwrite(path, doc.dump());
  l = load_cached_ceilings(m.key);
  CHECK_FALSE(l.ceilings);
  CHECK(l.problem.find("clock_hz") != std::string::npos);

  doc = to_json(m);
  doc["key"] = "another machine";
  overwrite(path, doc.dump());
  l = load_cached_ceilings(m.key);
  CHECK_FALSE(l.ceilings);
  CHECK(l.problem.find("another key") != std::string::npos);
}

TEST_CASE("a corrupt cache is measured again and overwritten", "[perf][cache]") {
  TemporaryCacheHome home;
  const int threads = 1;
  MachineCeilings m = sample(threads);
  const std::string path = store_cached_ceilings(m);
  overwrite(path, "not json");
  MachineCeilingOptions quick;
  quick.peak = {1, 0.001};
  quick.bandwidth = {1, 0.0005};
  quick.max_working_set = 64 << 10;
  int progress_calls = 0;
  const ObtainedCeilings got =
      cached_or_measured_ceilings(threads, false, quick, [&](const std::string &, double) { ++progress_calls; });
  CHECK_FALSE(got.from_cache);
  CHECK(got.note.find("corrupt") != std::string::npos);
  CHECK(progress_calls > 0);
  const CacheLookup again = load_cached_ceilings(m.key);
  REQUIRE(again.ceilings);
  CHECK(again.ceilings->compute_ceiling("f32")->value() > 0);
  // And the next call trusts it.
  CHECK(cached_or_measured_ceilings(threads, false, quick, [](const std::string &, double) {}).from_cache);
  CHECK_FALSE(cached_or_measured_ceilings(threads, true, quick, [](const std::string &, double) {}).from_cache);
}

TEST_CASE("a measured figure above its theory is reported", "[perf][cache]") {
  MachineCeilings m = sample(1);
  CHECK(m.above_theory().empty());
  m.compute[0].measured.max = 240e9;
  REQUIRE(m.above_theory().size() == 1);
  CHECK(m.above_theory()[0].find("f32 avx512") != std::string::npos);
}

TEST_CASE("bf16's roof is its f32 FMAs' peak where they outrun vdpbf16ps", "[perf][ceilings]") {
  MachineCeilings m = sample(1);
  m.compute.push_back({"bf16", "avx512", "vdpbf16ps zmm", 64, 0, {90e9, 80e9, 100e9, 9}});
  REQUIRE(m.roof_ceiling("bf16") == &m.compute[0]);  // Intel: 100 below the f32 loop's 220
  CHECK(m.roof_ceiling("f32") == &m.compute[0]);
  m.compute[1].measured.max = 400e9;                  // AMD: the dot product outruns the FMAs
  CHECK(m.roof_ceiling("bf16") == &m.compute[1]);
  CHECK(m.roof_ceiling("int8") == nullptr);
}
