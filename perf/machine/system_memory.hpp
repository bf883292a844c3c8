// The memory of this machine as the kernel counts it for every process
// (/proc/meminfo MemTotal, else sysconf). Not hwloc's root total_memory: hwloc
// sums the NUMA nodes' counters (/sys/devices/system/node/node*/meminfo), and a
// virtual machine's kernel may count only part of its memory there: 5.2-7.8 GiB
// of 23.6 GiB on the project's Firecracker guest, changing from run to run.
#pragma once

#include <cstdint>
#include <string>

namespace dlk::perf {

// MemTotal in bytes from the text of /proc/meminfo ("MemTotal:  24731708 kB");
// 0 when the text has no such line.
std::uint64_t meminfo_total_bytes(const std::string &meminfo);

// This machine's: /proc/meminfo, else sysconf(_SC_PHYS_PAGES) pages; 0 if neither answers.
std::uint64_t system_memory_bytes();

}  // namespace dlk::perf
