// The C ABI of libdlk_comm (include/dlk/dlk_comm.h): argument checks, then the
// communicator, buffer or synchronizer. Every entry point runs through api_guard.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

#include "comm/algorithm.hpp"
#include "comm/api_guard.hpp"
#include "comm/buffer.hpp"
#include "comm/buffer_state.hpp"
#include "comm/communicator.hpp"
#include "comm/operation.hpp"
#include "comm/synchronizer.hpp"

struct dlk_comm_s {
  std::unique_ptr<dlk::comm::Communicator> impl;
};
struct dlk_comm_buffer_s {
  dlk::comm::Buffer impl;
};
struct dlk_comm_request_s {
  std::shared_ptr<dlk::comm::Operation> operation;
};
struct dlk_comm_sync_s {
  dlk::comm::Synchronizer impl;
};

namespace dlk::comm {
namespace {

// Communicators made by dlk_comm_create_world after dlk initialized MPI: the
// last one destroyed finalizes it.
std::atomic<int> g_world_communicators{0};

void not_null(const char *call, const char *argument, const void *p) {
  if (!p) throw_invalid(call, argument, "must not be NULL");
}

void float_data(const char *call, const float *data, uint64_t count) {
  if (count > 0) not_null(call, "data", data);
  if (reinterpret_cast<uintptr_t>(data) % alignof(float) != 0)
    throw_invalid(call, "data", "must be 4-byte aligned");
}

void mpi_ready(const char *call) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Error(DLK_COMM_MPI_ERROR,
                std::string(call) + ": MPI is " + (finalized ? "finalized" : "not initialized") +
                    " (initialize it, or use dlk_comm_create_world)");
}

void start_allreduce(const char *call, dlk_comm_buffer buffer, float *data,
                     const std::shared_ptr<Operation> &operation) {
  Buffer &b = buffer->impl;
  b.comm->submit([call, &b, data, operation] {
    dlk_comm_report report{};
    Outcome outcome = run_guarded(call, [&] { allreduce(call, b, data, report, false); });
    operation->finish(std::move(outcome), report);
  });
}

}  // namespace
}  // namespace dlk::comm

using namespace dlk::comm;

extern "C" {

const char *dlk_comm_status_name(dlk_comm_status status) {
  switch (static_cast<int>(status)) {
    case DLK_COMM_SUCCESS: return "success";
    case DLK_COMM_INVALID_ARGUMENT: return "invalid_argument";
    case DLK_COMM_MISMATCH: return "mismatch";
    case DLK_COMM_MPI_ERROR: return "mpi_error";
    case DLK_COMM_CODEC_ERROR: return "codec_error";
    case DLK_COMM_OUT_OF_MEMORY: return "out_of_memory";
    case DLK_COMM_INTERNAL_ERROR: return "internal_error";
  }
  return "unknown";
}

const char *dlk_comm_algorithm_name(dlk_comm_algorithm algorithm) {
  return algorithm_name(algorithm);
}

dlk_comm_status dlk_comm_algorithm_from_name(const char *name, dlk_comm_algorithm *algorithm) {
  constexpr const char *kCall = "dlk_comm_algorithm_from_name";
  return api_guard(kCall, [&] {
    not_null(kCall, "name", name);
    not_null(kCall, "algorithm", algorithm);
    if (!parse_algorithm(name, *algorithm))
      throw_invalid(kCall, "name",
                    "is '" + std::string(name) + "'; valid values: " + algorithm_names());
  });
}

const char *dlk_comm_last_error(void) { return last_error(); }

dlk_comm_status dlk_comm_create(MPI_Comm mpi_comm, dlk_comm *comm) {
  constexpr const char *kCall = "dlk_comm_create";
  return api_guard(kCall, [&] {
    not_null(kCall, "comm", comm);
    mpi_ready(kCall);
    if (mpi_comm == MPI_COMM_NULL) throw_invalid(kCall, "mpi_comm", "must not be MPI_COMM_NULL");
    auto handle = std::make_unique<dlk_comm_s>();
    handle->impl = std::make_unique<Communicator>(mpi_comm, false, kCall);
    *comm = handle.release();
  });
}

dlk_comm_status dlk_comm_create_world(dlk_comm *comm) {
  constexpr const char *kCall = "dlk_comm_create_world";
  return api_guard(kCall, [&] {
    not_null(kCall, "comm", comm);
    int initialized = 0;
    MPI_Initialized(&initialized);
    bool ours = false;
    if (!initialized) {
      int provided = 0;
      check_mpi(kCall, "MPI_Init_thread",
                MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided));
      ours = true;
    } else {
      ours = g_world_communicators.load() > 0;
    }
    mpi_ready(kCall);
    auto handle = std::make_unique<dlk_comm_s>();
    handle->impl = std::make_unique<Communicator>(MPI_COMM_WORLD, ours, kCall);
    if (ours) ++g_world_communicators;
    *comm = handle.release();
  });
}

dlk_comm_status dlk_comm_destroy(dlk_comm comm) {
  constexpr const char *kCall = "dlk_comm_destroy";
  return api_guard(kCall, [&] {
    if (!comm) return;
    const bool ours = comm->impl->initialized_mpi();
    delete comm;
    if (ours && --g_world_communicators == 0) check_mpi(kCall, "MPI_Finalize", MPI_Finalize());
  });
}

dlk_comm_status dlk_comm_get_properties(dlk_comm comm, dlk_comm_properties *properties) {
  constexpr const char *kCall = "dlk_comm_get_properties";
  return api_guard(kCall, [&] {
    not_null(kCall, "comm", comm);
    not_null(kCall, "properties", properties);
    const Communicator &c = *comm->impl;
    *properties = {c.rank(), c.size(), c.thread_level(), c.background() ? 1 : 0,
                   c.default_algorithm()};
  });
}

dlk_comm_status dlk_comm_config_init(dlk_comm_config *config) {
  constexpr const char *kCall = "dlk_comm_config_init";
  return api_guard(kCall, [&] {
    not_null(kCall, "config", config);
    *config = dlk_comm_config{};
    config->algorithm = DLK_COMM_ALGO_DEFAULT;
    config->topk_fraction = 0.01;
  });
}

dlk_comm_status dlk_comm_buffer_create(dlk_comm comm, uint64_t count,
                                       const dlk_comm_config *config, dlk_comm_buffer *buffer) {
  constexpr const char *kCall = "dlk_comm_buffer_create";
  return api_guard(kCall, [&] {
    not_null(kCall, "comm", comm);
    not_null(kCall, "config", config);
    not_null(kCall, "buffer", buffer);
    if (count > (uint64_t(1) << 48))
      throw_invalid(kCall, "count", "is " + std::to_string(count) + "; at most 2^48");
    *buffer = new dlk_comm_buffer_s{make_buffer(kCall, *comm->impl, count, *config)};
  });
}

dlk_comm_status dlk_comm_buffer_destroy(dlk_comm_buffer buffer) {
  return api_guard("dlk_comm_buffer_destroy", [&] { delete buffer; });
}

dlk_comm_status dlk_comm_allreduce(dlk_comm_buffer buffer, float *data, dlk_comm_report *report) {
  constexpr const char *kCall = "dlk_comm_allreduce";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    float_data(kCall, data, buffer->impl.count);
    dlk_comm_report r{};
    buffer->impl.comm->execute([&] { allreduce(kCall, buffer->impl, data, r, true); });
    if (report) *report = r;
  });
}

dlk_comm_status dlk_comm_iallreduce(dlk_comm_buffer buffer, float *data,
                                    dlk_comm_request *request) {
  constexpr const char *kCall = "dlk_comm_iallreduce";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    not_null(kCall, "request", request);
    float_data(kCall, data, buffer->impl.count);
    auto handle = std::make_unique<dlk_comm_request_s>();
    handle->operation = std::make_shared<Operation>();
    start_allreduce(kCall, buffer, data, handle->operation);
    *request = handle.release();
  });
}

dlk_comm_status dlk_comm_test(dlk_comm_request request, int *done) {
  constexpr const char *kCall = "dlk_comm_test";
  return api_guard(kCall, [&] {
    not_null(kCall, "request", request);
    not_null(kCall, "done", done);
    *done = request->operation->done() ? 1 : 0;
  });
}

dlk_comm_status dlk_comm_wait(dlk_comm_request request, dlk_comm_report *report) {
  constexpr const char *kCall = "dlk_comm_wait";
  if (!request) return api_guard(kCall, [&] { not_null(kCall, "request", request); });
  const Outcome outcome = request->operation->wait(report);
  delete request;
  return dlk::comm::report(outcome);
}

dlk_comm_status dlk_comm_buffer_reset_residuals(dlk_comm_buffer buffer) {
  constexpr const char *kCall = "dlk_comm_buffer_reset_residuals";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    std::fill(buffer->impl.worker_residual.begin(), buffer->impl.worker_residual.end(), 0.0f);
    std::fill(buffer->impl.server_residual.begin(), buffer->impl.server_residual.end(), 0.0f);
  });
}

dlk_comm_status dlk_comm_buffer_state_size(dlk_comm_buffer buffer, size_t *bytes) {
  constexpr const char *kCall = "dlk_comm_buffer_state_size";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    not_null(kCall, "bytes", bytes);
    *bytes = state_size(buffer->impl);
  });
}

dlk_comm_status dlk_comm_buffer_save_state(dlk_comm_buffer buffer, void *state,
                                           size_t capacity) {
  constexpr const char *kCall = "dlk_comm_buffer_save_state";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    not_null(kCall, "state", state);
    save_state(kCall, buffer->impl, state, capacity);
  });
}

dlk_comm_status dlk_comm_buffer_load_state(dlk_comm_buffer buffer, const void *state,
                                           size_t size) {
  constexpr const char *kCall = "dlk_comm_buffer_load_state";
  return api_guard(kCall, [&] {
    not_null(kCall, "buffer", buffer);
    not_null(kCall, "state", state);
    load_state(kCall, buffer->impl, state, size);
  });
}

dlk_comm_status dlk_comm_sync_create(dlk_comm comm, const dlk_comm_config *config,
                                     uint64_t bucket_bytes, dlk_comm_sync *sync) {
  constexpr const char *kCall = "dlk_comm_sync_create";
  return api_guard(kCall, [&] {
    not_null(kCall, "comm", comm);
    not_null(kCall, "config", config);
    not_null(kCall, "sync", sync);
    if (bucket_bytes == 0) bucket_bytes = DLK_COMM_DEFAULT_BUCKET_BYTES;
    make_buffer(kCall, *comm->impl, 0, *config);  // checks the configuration now
    *sync = new dlk_comm_sync_s{Synchronizer(*comm->impl, *config, bucket_bytes)};
  });
}

dlk_comm_status dlk_comm_sync_destroy(dlk_comm_sync sync) {
  return api_guard("dlk_comm_sync_destroy", [&] { delete sync; });
}

dlk_comm_status dlk_comm_sync_add(dlk_comm_sync sync, float *gradient, uint64_t count,
                                  uint32_t *index) {
  constexpr const char *kCall = "dlk_comm_sync_add";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "index", index);
    *index = sync->impl.add(kCall, gradient, count);
  });
}

dlk_comm_status dlk_comm_sync_commit(dlk_comm_sync sync) {
  constexpr const char *kCall = "dlk_comm_sync_commit";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    sync->impl.commit(kCall);
  });
}

dlk_comm_status dlk_comm_sync_bucket_count(dlk_comm_sync sync, uint32_t *buckets) {
  constexpr const char *kCall = "dlk_comm_sync_bucket_count";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "buckets", buckets);
    *buckets = sync->impl.bucket_count(kCall);
  });
}

dlk_comm_status dlk_comm_sync_ready(dlk_comm_sync sync, uint32_t index) {
  constexpr const char *kCall = "dlk_comm_sync_ready";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    sync->impl.ready(kCall, index);
  });
}

dlk_comm_status dlk_comm_sync_gradient_bucket(dlk_comm_sync sync, uint32_t index,
                                              uint32_t *bucket) {
  constexpr const char *kCall = "dlk_comm_sync_gradient_bucket";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "bucket", bucket);
    *bucket = sync->impl.gradient_bucket(kCall, index);
  });
}

dlk_comm_status dlk_comm_sync_wait_bucket(dlk_comm_sync sync, uint32_t bucket) {
  constexpr const char *kCall = "dlk_comm_sync_wait_bucket";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    sync->impl.wait_bucket(kCall, bucket);
  });
}

dlk_comm_status dlk_comm_sync_wait(dlk_comm_sync sync, dlk_comm_sync_report *report,
                                   dlk_comm_report *bucket_reports) {
  constexpr const char *kCall = "dlk_comm_sync_wait";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    sync->impl.wait(kCall, report, bucket_reports);
  });
}

dlk_comm_status dlk_comm_sync_bucket_times(dlk_comm_sync sync, double *starts, double *ends) {
  constexpr const char *kCall = "dlk_comm_sync_bucket_times";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "starts", starts);
    not_null(kCall, "ends", ends);
    sync->impl.bucket_times(kCall, starts, ends);
  });
}

dlk_comm_status dlk_comm_sync_reset_residuals(dlk_comm_sync sync) {
  constexpr const char *kCall = "dlk_comm_sync_reset_residuals";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    uint32_t buckets = sync->impl.bucket_count(kCall);
    for (uint32_t k = 0; k < buckets; ++k) {
      Buffer &b = sync->impl.bucket_buffer(kCall, k);
      std::fill(b.worker_residual.begin(), b.worker_residual.end(), 0.0f);
      std::fill(b.server_residual.begin(), b.server_residual.end(), 0.0f);
    }
  });
}

dlk_comm_status dlk_comm_sync_bucket_state_size(dlk_comm_sync sync, uint32_t bucket,
                                                size_t *bytes) {
  constexpr const char *kCall = "dlk_comm_sync_bucket_state_size";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "bytes", bytes);
    *bytes = state_size(sync->impl.bucket_buffer(kCall, bucket));
  });
}

dlk_comm_status dlk_comm_sync_save_bucket_state(dlk_comm_sync sync, uint32_t bucket, void *state,
                                                size_t capacity) {
  constexpr const char *kCall = "dlk_comm_sync_save_bucket_state";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "state", state);
    save_state(kCall, sync->impl.bucket_buffer(kCall, bucket), state, capacity);
  });
}

dlk_comm_status dlk_comm_sync_load_bucket_state(dlk_comm_sync sync, uint32_t bucket,
                                                const void *state, size_t size) {
  constexpr const char *kCall = "dlk_comm_sync_load_bucket_state";
  return api_guard(kCall, [&] {
    not_null(kCall, "sync", sync);
    not_null(kCall, "state", state);
    load_state(kCall, sync->impl.bucket_buffer(kCall, bucket), state, size);
  });
}

}  // extern "C"
