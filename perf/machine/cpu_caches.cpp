#include "perf/machine/cpu_caches.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

#include <unistd.h>

namespace dlk::perf {
namespace {

std::string read_line(const std::string &path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

size_t parse_cache_size(const char *text) {
  char *end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (end == text) return 0;
  switch (*end) {
    case '\0': return value;
    case 'K': return value << 10;
    case 'M': return value << 20;
    case 'G': return value << 30;
    default: return 0;
  }
}

CacheSizes cpu_cache_sizes() {
  CacheSizes sizes;
  const std::string base = "/sys/devices/system/cpu/cpu0/cache/index";
  for (int index = 0; index < 8; ++index) {
    const std::string dir = base + std::to_string(index) + "/";
    const std::string level = read_line(dir + "level");
    if (level.empty()) break;
    const std::string type = read_line(dir + "type");
    const size_t size = parse_cache_size(read_line(dir + "size").c_str());
    if (level == "1" && type == "Data") sizes.l1d = size;
    if (level == "2" && type != "Instruction") sizes.l2 = size;
    if (level == "3" && type != "Instruction") sizes.l3 = size;
  }
  auto from_sysconf = [](size_t &size, int name) {
    const long value = sysconf(name);
    if (size == 0 && value > 0) size = static_cast<size_t>(value);
  };
  from_sysconf(sizes.l1d, _SC_LEVEL1_DCACHE_SIZE);
  from_sysconf(sizes.l2, _SC_LEVEL2_CACHE_SIZE);
  from_sysconf(sizes.l3, _SC_LEVEL3_CACHE_SIZE);
  return sizes;
}

}  // namespace dlk::perf
