// The all-reduce algorithms by name, and which codec a compressed one uses.
#pragma once

#include <cstdint>
#include <string>

#include "dlk/dlk_comm.h"
#include "dlk/dlk_compress.h"

namespace dlk::comm {

bool known_algorithm(int value);  // value: an enum field read by enum_field::stored_int
const char *algorithm_name(dlk_comm_algorithm algorithm);
// "auto, native, ring, ..." (what DLK_COMM_ALGO accepts).
const char *algorithm_names();
// False when `name` is none of algorithm_names().
bool parse_algorithm(const std::string &name, dlk_comm_algorithm &algorithm);

// onebit, int8, int4, fp16, bf16: the two-phase compressed all-reduce.
bool two_phase_compressed(dlk_comm_algorithm algorithm);
// Every algorithm with residuals (the two-phase ones and topk).
bool compressed(dlk_comm_algorithm algorithm);
dlk_codec_algorithm codec_of(dlk_comm_algorithm algorithm);

// The residuals a buffer of `count` floats keeps for `algorithm` on rank `rank`
// of `ranks` (ranks >= 1): count floats on the worker side for every compressed
// algorithm, and the rank's segment on the server side for the two-phase ones.
struct ResidualLengths {
  uint64_t worker = 0, server = 0;
};
ResidualLengths residual_lengths(dlk_comm_algorithm algorithm, uint64_t count, uint32_t ranks,
                                 uint32_t rank);

}  // namespace dlk::comm
