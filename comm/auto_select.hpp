// auto: the algorithm for one buffer, from the communicator's link model
// (measured on first use, collectively) and the codecs' measured cost.
#pragma once

#include <cstdint>

#include "comm/communicator.hpp"

namespace dlk::comm {

// Collective (every rank gets the same answer). Says why on the DLK_VERBOSE line.
dlk_comm_algorithm choose_algorithm(const char *call, Communicator &comm, uint64_t count,
                                    const dlk_comm_config &config);

}  // namespace dlk::comm
