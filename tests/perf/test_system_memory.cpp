// The machine header's memory is the kernel's MemTotal, not hwloc's sum of NUMA
// nodes (which a VM's kernel may undercount: 5.2-7.8 of 23.6 GiB here).
#include <cstdint>
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "perf/machine/machine_header.hpp"
#include "perf/machine/system_memory.hpp"

namespace dlk::perf {

TEST_CASE("MemTotal is read from /proc/meminfo's text", "[perf][machine]") {
  CHECK(meminfo_total_bytes("MemTotal:       24731708 kB\nMemFree:  1 kB\n") == 24731708ull * 1024);
  CHECK(meminfo_total_bytes("MemFree:  1 kB\nMemTotal: 2048 kB\n") == 2048ull * 1024);
  CHECK(meminfo_total_bytes("MemFree:  1 kB\n") == 0);
  CHECK(meminfo_total_bytes("MemTotal: lots\n") == 0);
  CHECK(meminfo_total_bytes("") == 0);
}

TEST_CASE("the machine header's memory is this machine's MemTotal", "[perf][machine]") {
  std::ifstream file("/proc/meminfo");
  if (!file) {
    WARN("no /proc/meminfo: nothing to compare with");
    return;
  }
  std::ostringstream text;
  text << file.rdbuf();
  const std::uint64_t mem_total = meminfo_total_bytes(text.str());
  REQUIRE(mem_total > 0);
  const nlohmann::ordered_json header = machine_header(1, 0).json();
  // MemTotal moves only with memory hot-plug or ballooning between the two reads.
  const double shown = header.at("memory").get<double>();
  CHECK(shown == Approx(static_cast<double>(mem_total)).epsilon(0.01));
}

}  // namespace dlk::perf
