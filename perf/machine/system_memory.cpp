#include "perf/machine/system_memory.hpp"

#include <fstream>
#include <sstream>

#include <unistd.h>

namespace dlk::perf {

std::uint64_t meminfo_total_bytes(const std::string &meminfo) {
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("MemTotal:", 0) != 0) continue;
    std::istringstream fields(line.substr(9));
    std::uint64_t value = 0;
    std::string unit;
    if (!(fields >> value)) return 0;
    fields >> unit;
    return unit == "kB" ? value * 1024 : value;
  }
  return 0;
}

std::uint64_t system_memory_bytes() {
  std::ifstream file("/proc/meminfo");
  if (file) {
    std::ostringstream text;
    text << file.rdbuf();
    if (const std::uint64_t bytes = meminfo_total_bytes(text.str())) return bytes;
  }
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

}  // namespace dlk::perf
