// What `auto` knows about the machine: an alpha-beta fit of MPI_Allreduce on this
// communicator and the measured cost of each candidate codec, measured once per
// communicator (collectively, the slowest rank's figures) and then cached.
#pragma once

#include "dlk/dlk_compress.h"

namespace dlk::comm {

struct LinkModel {
  bool measured = false;
  double alpha = 0.0;  // seconds per MPI_Allreduce call
  double beta = 0.0;   // seconds per byte of the buffer
  // Indexed by dlk_codec_algorithm; seconds per input byte.
  double encode_seconds_per_byte[DLK_CODEC_BF16 + 1] = {};
  double decode_seconds_per_byte[DLK_CODEC_BF16 + 1] = {};
};

}  // namespace dlk::comm
