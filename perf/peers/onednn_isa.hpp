// oneDNN's CPU ISA cap. oneDNN fixes the ISA it dispatches to once per process,
// at its first primitive (or the first question about it): DNNL_MAX_CPU_ISA in
// the environment, or set_onednn_max_isa called before that. A subcommand that
// offers the cap calls set_onednn_max_isa before it creates any peer; comparing
// capped and uncapped oneDNN therefore takes two processes (two runs).
#pragma once

#include <string>
#include <vector>

namespace dlk::perf {

// "all" (no cap) and the caps that matter on the CPUs dlk runs on, in
// oneDNN's spelling: avx512_core_amx, avx512_core_bf16, avx512_core_vnni,
// avx512_core, avx2.
const std::vector<std::string> &onednn_isa_names();

// Caps oneDNN at `name` (one of onednn_isa_names; "all" leaves DNNL_MAX_CPU_ISA,
// if set, in force). Throws std::runtime_error when oneDNN refuses: its ISA is
// already fixed, or it was built without the cap.
void set_onednn_max_isa(const std::string &name);

// The ISA oneDNN dispatches to, e.g. "avx512_core_amx" (fixes it if not yet).
std::string onednn_effective_isa();

// What a reader of a comparison with oneDNN on `isa` (an onednn_effective_isa
// name) must know: on AMX, that its bf16 and int8 use the tiles, as dlk's GEMM
// does there; empty otherwise.
std::string onednn_isa_caveat(const std::string &isa);

}  // namespace dlk::perf
