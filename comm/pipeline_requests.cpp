#include "comm/pipeline_requests.hpp"

#include <cstdint>
#include <utility>

namespace dlk::comm {

void abandon(PipelineRequests &requests, Scratch &scratch) {
  for (MPI_Request &r : requests.receives)
    if (r != MPI_REQUEST_NULL) MPI_Cancel(&r);
  MPI_Waitall(static_cast<int>(requests.receives.size()), requests.receives.data(),
              MPI_STATUSES_IGNORE);
  for (MPI_Request &r : requests.sends)
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
  // Deliberately leaked: a freed send may still read them.
  for (std::vector<uint8_t> *buffer : {&scratch.outgoing, &scratch.incoming, &scratch.gathered})
    if (!buffer->empty()) new std::vector<uint8_t>(std::move(*buffer));
}

}  // namespace dlk::comm
