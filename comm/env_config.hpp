// Every environment variable libdlk_comm reads is declared once here, with its
// valid values and default, in the form core/env_config.hpp uses for libdlk.
// comm/ may not include core/ (DESIGN.md: libdlk_comm links only MPI and
// libdlk_compress), hence its own table; values are parsed by the rule every dlk
// variable follows (common/env_value.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "dlk/dlk_comm.h"

namespace dlk::comm {

struct EnvVar {
  const char *name;
  const char *values;  // for messages and docs
  const char *default_value;
  const char *meaning;
};

const std::vector<EnvVar> &env_vars();

// DLK_COMM_ALGO, else native. Throws DLK_COMM_INVALID_ARGUMENT naming the
// variable and listing the valid values for an unknown value.
dlk_comm_algorithm default_algorithm(const char *call);

// DLK_COMM_CHUNK_BYTES, else kDefaultChunkBytes (comm/chunk_plan.hpp); a value
// that is not an integer in [kMinChunkBytes, kMaxChunkBytes] is an error.
uint64_t chunk_bytes(const char *call);

// DLK_VERBOSE (0, 1, 2), shared with libdlk; an unknown value is an error too.
int verbose_level(const char *call);

}  // namespace dlk::comm
