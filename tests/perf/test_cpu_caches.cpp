#include <catch2/catch.hpp>

#include "perf/machine/cpu_caches.hpp"
#include "perf/ceilings/memory_bandwidth.hpp"

using namespace dlk::perf;

TEST_CASE("sysfs cache sizes parse with their suffix", "[perf][caches]") {
  CHECK(parse_cache_size("48K") == 48u << 10);
  CHECK(parse_cache_size("1024K") == 1u << 20);
  CHECK(parse_cache_size("32M") == 32u << 20);
  CHECK(parse_cache_size("512") == 512u);
  CHECK(parse_cache_size("") == 0u);
  CHECK(parse_cache_size("big") == 0u);
  CHECK(parse_cache_size("12Q") == 0u);
}

TEST_CASE("the DRAM working set is 8x L3 within 256 MiB..1 GiB", "[perf][caches]") {
  const size_t mib = size_t{1} << 20;
  CHECK(dram_working_set(32 * mib) == 256 * mib);
  CHECK(dram_working_set(64 * mib) == 512 * mib);
  CHECK(dram_working_set(508 * mib) == 1024 * mib);
  CHECK(dram_working_set(8 * mib) == 256 * mib);
  CHECK(dram_working_set(0) == 1024 * mib);
}
