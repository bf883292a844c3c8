// libFuzzer target: the descriptors a caller hands libdlk_comm, through its C
// API, on a one-rank communicator (the fuzzer is an MPI singleton: MPI_Init in
// LLVMFuzzerInitialize, no mpiexec). From the fuzzer's bytes: an algorithm name,
// a configuration (any algorithm value, block size, topk fraction of any bits,
// warm-up, threshold), a count and gradient values (any float bits) in guarded
// buffers, a misaligned or NULL pointer now and then; then a buffer's
// all-reduce, iallreduce, checkpoint round trip and reset, and a synchronizer
// with fuzzed gradient counts, bucket size and ready order, and its bucket
// states, times and reset between steps. Every call must
// return a status of the enum (never an internal error), with a message naming
// the call when it fails; on one rank the plain algorithms' sum is the input,
// bit for bit.
#include <mpi.h>
#include <sanitizer/lsan_interface.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "dlk/dlk_comm.h"
#include "tests/fuzz/fuzz_support.hpp"

namespace {

using dlk_fuzz::Bytes;
using dlk_fuzz::GuardedBuffer;
using dlk_fuzz::require;

dlk_comm g_comm = nullptr;

// The status of a call named `call`: a value of the enum, and a message naming
// the call when it is not success.
dlk_comm_status checked(const char *call, dlk_comm_status status) {
  require(status >= DLK_COMM_SUCCESS && status <= DLK_COMM_INTERNAL_ERROR);
  require(status != DLK_COMM_INTERNAL_ERROR && status != DLK_COMM_MISMATCH);
  if (status != DLK_COMM_SUCCESS)
    require(std::strncmp(dlk_comm_last_error(), call, std::strlen(call)) == 0);
  return status;
}
#define CALL(f, ...) checked(#f, f(__VA_ARGS__))

uint64_t u64(Bytes &in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(in.u8()) << (8 * i);
  return v;
}

dlk_comm_config config_from(Bytes &in) {
  dlk_comm_config c;
  require(dlk_comm_config_init(&c) == DLK_COMM_SUCCESS);
  const int algorithm = in.choice(11);  // DEFAULT..BF16, or a raw value outside
  std::memcpy(&c.algorithm, &algorithm, sizeof algorithm);
  c.average = in.flag();
  if (in.flag()) c.block_size = uint32_t(in.dim());
  c.stochastic_rounding = in.flag();
  c.seed = in.u8();
  if (in.flag()) c.topk_fraction = in.flag() ? in.real() : in.u8() / 128.0;
  c.topk_exact = in.flag();
  c.warmup_steps = in.u8() % 3;
  c.min_compress_bytes = in.flag() ? u64(in) : 0;
  return c;
}

bool plain(const dlk_comm_config &c) {
  int algorithm;
  std::memcpy(&algorithm, &c.algorithm, sizeof algorithm);
  return algorithm == DLK_COMM_ALGO_NATIVE || algorithm == DLK_COMM_ALGO_RING ||
         algorithm == DLK_COMM_ALGO_PS;
}

void buffer_calls(Bytes &in) {
  const dlk_comm_config config = config_from(in);
  const uint64_t count = in.u8() | uint64_t(in.u8() % 16) << 8;
  dlk_comm_buffer buffer = nullptr;
  if (CALL(dlk_comm_buffer_create, g_comm, count, &config, &buffer) != DLK_COMM_SUCCESS) {
    require(buffer == nullptr);
    return;
  }
  GuardedBuffer data(4 * count + 4);
  in.fill(data.data(), data.size());
  const std::vector<uint8_t> before(data.data(), data.data() + data.size());
  const int how = in.u8() % 8;
  float *at = reinterpret_cast<float *>(how == 7 ? data.data() + 1 : data.data() + 4);
  if (how == 6) at = nullptr;
  for (int call = 0; call < 2; ++call) {
    dlk_comm_report report;
    const dlk_comm_status status = CALL(dlk_comm_allreduce, buffer, at, &report);
    // Dividing by one rank would quiet a signalling NaN: only sums are compared.
    if (status == DLK_COMM_SUCCESS && plain(config) && !config.average)
      require(std::memcmp(data.data(), before.data(), before.size()) == 0);
  }
  dlk_comm_request request = nullptr;
  if (CALL(dlk_comm_iallreduce, buffer, at, &request) == DLK_COMM_SUCCESS)
    checked("dlk_comm_", dlk_comm_wait(request, nullptr));  // the all-reduce's own message

  size_t bytes = 0;
  require(CALL(dlk_comm_buffer_state_size, buffer, &bytes) == DLK_COMM_SUCCESS);
  const size_t capacity = in.flag() ? bytes - (bytes > 0) : bytes;
  GuardedBuffer state(capacity);
  if (CALL(dlk_comm_buffer_save_state, buffer, state.data(), capacity) == DLK_COMM_SUCCESS) {
    require(capacity == bytes);
    require(CALL(dlk_comm_buffer_load_state, buffer, state.data(), capacity) == DLK_COMM_SUCCESS);
  }
  require(CALL(dlk_comm_buffer_reset_residuals, buffer) == DLK_COMM_SUCCESS);
  require(CALL(dlk_comm_buffer_destroy, buffer) == DLK_COMM_SUCCESS);
}

// After a wait: the timeline, the bucket states' round trip (any bucket number,
// any capacity), a reset; after a ready, the state calls refuse.
void sync_between_steps(dlk_comm_sync sync, uint32_t buckets, Bytes &in) {
  std::vector<double> starts(buckets + 1), ends(buckets + 1);  // never NULL, even for 0
  require(CALL(dlk_comm_sync_bucket_times, sync, starts.data(), ends.data()) == DLK_COMM_SUCCESS);
  const uint32_t bucket = in.u8() % (buckets + 2);
  size_t bytes = 0;
  if (CALL(dlk_comm_sync_bucket_state_size, sync, bucket, &bytes) == DLK_COMM_SUCCESS) {
    const size_t capacity = in.flag() ? bytes : in.u8();
    std::vector<unsigned char> state(capacity + 1);
    if (CALL(dlk_comm_sync_save_bucket_state, sync, bucket, state.data(), capacity) ==
        DLK_COMM_SUCCESS) {
      if (in.flag() && capacity > 0) state[in.u8() % capacity] ^= in.u8();
      CALL(dlk_comm_sync_load_bucket_state, sync, bucket, state.data(), capacity);
    }
  }
  if (in.flag()) require(CALL(dlk_comm_sync_reset_residuals, sync) == DLK_COMM_SUCCESS);
}

void sync_calls(Bytes &in) {
  const dlk_comm_config config = config_from(in);
  const uint64_t bucket_bytes = in.flag() ? in.u8() * 64 : u64(in);
  dlk_comm_sync sync = nullptr;
  if (CALL(dlk_comm_sync_create, g_comm, &config, bucket_bytes, &sync) != DLK_COMM_SUCCESS) {
    require(sync == nullptr);
    return;
  }
  const int gradients = in.u8() % 5;
  std::vector<std::unique_ptr<GuardedBuffer>> memory;
  for (int g = 0; g < gradients; ++g) {
    const uint64_t count = in.u8() % 200;
    memory.push_back(std::make_unique<GuardedBuffer>(4 * count));
    in.fill(memory.back()->data(), memory.back()->size());
    float *gradient = in.u8() % 16 == 0 ? nullptr : reinterpret_cast<float *>(memory.back()->data());
    uint32_t index = 0;
    CALL(dlk_comm_sync_add, sync, gradient, count, &index);
  }
  uint32_t buckets = 0;
  CALL(dlk_comm_sync_bucket_count, sync, &buckets);
  if (CALL(dlk_comm_sync_commit, sync) == DLK_COMM_SUCCESS) {
    require(CALL(dlk_comm_sync_bucket_count, sync, &buckets) == DLK_COMM_SUCCESS);
    for (int step = 0; step < 2; ++step) {
      const int readies = in.u8() % 8;
      for (int i = 0; i < readies; ++i) CALL(dlk_comm_sync_ready, sync, in.u8() % 6);
      if (in.flag()) {
        uint32_t bucket = 0;
        CALL(dlk_comm_sync_gradient_bucket, sync, in.u8() % 6, &bucket);
        checked("dlk_comm_sync_", dlk_comm_sync_wait_bucket(sync, in.u8() % (buckets + 2)));
      }
      std::vector<dlk_comm_report> reports(buckets);
      dlk_comm_sync_report report;
      // A bucket's error names the call that started it (dlk_comm_sync_ready).
      checked("dlk_comm_sync_", dlk_comm_sync_wait(sync, &report, reports.data()));
      sync_between_steps(sync, buckets, in);
    }
  }
  require(CALL(dlk_comm_sync_destroy, sync) == DLK_COMM_SUCCESS);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // Open MPI keeps some of what it allocates here unreachable until exit: not
  // leaks of dlk, which the check after each input is there to find.
  __lsan::ScopedDisabler mpi_allocations;
  int provided = 0;
  require(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
  require(dlk_comm_create(MPI_COMM_SELF, &g_comm) == DLK_COMM_SUCCESS);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  char name[9] = {};
  for (char &c : name) c = static_cast<char>(in.u8() % 4 ? 'a' + in.u8() % 26 : 0);
  name[8] = 0;
  dlk_comm_algorithm algorithm;
  if (CALL(dlk_comm_algorithm_from_name, name, &algorithm) == DLK_COMM_SUCCESS)
    require(std::strcmp(dlk_comm_algorithm_name(algorithm), name) == 0);
  if (in.flag())
    sync_calls(in);
  else
    buffer_calls(in);
  return 0;
}
