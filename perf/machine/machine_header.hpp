// The machine at the top of every report: CPU model and microarchitecture,
// cores and threads used, placement, ISA, clock estimate, caches, memory (from
// hwloc, which reads sysfs and cpuid the same way on every Linux), and what a
// subcommand adds: library versions, the OpenBLAS core, MPI, the GPU.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dlk/dlk.h"

namespace dlk::perf {

class MachineHeader {
 public:
  // text: what a person reads after "label:"; json: the value under "key".
  void add(const std::string &key, const std::string &label, const std::string &text,
           nlohmann::ordered_json json);
  void add(const std::string &key, const std::string &label, const std::string &text) {
    add(key, label, text, text);
  }
  // "machine\n  label: text\n ..." with the labels aligned.
  std::string text() const;
  // {key: json, ...} in the order added.
  nlohmann::ordered_json json() const;

 private:
  struct Field {
    std::string key, label, text;
    nlohmann::ordered_json json;
  };
  std::vector<Field> fields_;
};

// CPU, topology, placement of `threads` threads, caches, memory, OS, clock
// (the estimate given; 0 leaves it out), dlk and hwloc versions.
MachineHeader machine_header(int threads, double clock_hz);

// What a subcommand that runs ops on a context opens with: machine_header on
// the context's threads with the clock estimated now (estimate_clock_hz, a few
// ms: call it before a peer library starts its worker threads), and the
// context's backend, device and ISA.
MachineHeader context_machine_header(const dlk_context_info &info);

}  // namespace dlk::perf
