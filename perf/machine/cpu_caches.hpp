// Data-cache sizes of this machine, to choose working sets for bandwidth
// measurements (a read that fits L2 measures L2, one far above L3 measures DRAM).
#pragma once

#include <cstddef>

namespace dlk::perf {

struct CacheSizes {
  size_t l1d = 0;  // per core; 0 where the system does not say
  size_t l2 = 0;   // per core
  size_t l3 = 0;   // per instance (shared)
};

// From /sys/devices/system/cpu/cpu0/cache (Linux), else from sysconf (glibc reads
// cpuid). Inside a virtual machine cpuid may describe the host: this machine's
// guest reports a 508 MiB L3 (the host's total) where one CCD has 32 MiB.
CacheSizes cpu_cache_sizes();

// Parses sysfs's size text ("48K", "1024K", "32M", "512"); 0 when it cannot.
size_t parse_cache_size(const char *text);

}  // namespace dlk::perf
