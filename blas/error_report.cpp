#include "blas/error_report.hpp"

#include <cstddef>
#include <cstdio>
#include <mutex>

// Weak references: resolved to the program's or the system BLAS's definitions
// when the process has them, NULL otherwise. Defining them here instead would
// replace the system BLAS's handlers under LD_PRELOAD.
extern "C" {
__attribute__((weak)) void xerbla_(const char *routine, const int *info, size_t routine_length);
__attribute__((weak)) void cblas_xerbla(int info, const char *routine, const char *form, ...);
// The reference CBLAS's state, which its xerbla_ and cblas_xerbla (and the CBLAS
// test programs' replacements) read.
__attribute__((weak)) extern int CBLAS_CallFromC;
__attribute__((weak)) extern int RowMajorStrg;
}

namespace dlk::blas {
namespace {

constexpr const char *kCblasRoutine = "cblas_sgemm";
constexpr const char *kFortranRoutine = "SGEMM ";  // the reference's name, padded to 6

// The handlers read process-wide flags; one error report at a time.
std::mutex report_mutex;

void print_reference_message(int position, const char *routine) {
  std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", position, routine);
}

// The position in cblas_sgemm's own argument list (layout first) of the Fortran
// call's argument fortran_info.
int cblas_position(bool row_major, int fortran_info) {
  const int position = fortran_info + 1;
  if (!row_major) return position;
  switch (position) {
    case 4: return 5;    // the Fortran M is N
    case 5: return 4;    // the Fortran N is M
    case 9: return 11;   // the Fortran LDA is ldb
    case 11: return 9;   // the Fortran LDB is lda
    default: return position;
  }
}

bool reference_cblas_loaded() { return &CBLAS_CallFromC != nullptr && &RowMajorStrg != nullptr; }

// Raises the reference CBLAS's flags for the length of one report, as its
// cblas_sgemm does around its work; both are 0 afterwards, as it leaves them.
class CblasFlags {
 public:
  explicit CblasFlags(bool row_major) {
    if (!reference_cblas_loaded()) return;
    CBLAS_CallFromC = 1;
    RowMajorStrg = row_major ? 1 : 0;
  }
  ~CblasFlags() {
    if (!reference_cblas_loaded()) return;
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
  }
  CblasFlags(const CblasFlags &) = delete;
  CblasFlags &operator=(const CblasFlags &) = delete;
};

}  // namespace

void report_fortran_error(const char *routine, int info) {
  std::lock_guard<std::mutex> lock(report_mutex);
  if (xerbla_) {
    xerbla_(routine, &info, 6);
  } else {
    print_reference_message(info, routine);
  }
}

void report_cblas_error(bool row_major, int position, const char *form, int value) {
  std::lock_guard<std::mutex> lock(report_mutex);
  CblasFlags flags(row_major);
  if (cblas_xerbla) {
    cblas_xerbla(position, kCblasRoutine, form, value);
  } else {
    print_reference_message(position, kCblasRoutine);
  }
}

void report_cblas_fortran_error(bool row_major, int fortran_info) {
  std::lock_guard<std::mutex> lock(report_mutex);
  if (xerbla_ && reference_cblas_loaded()) {
    CblasFlags flags(row_major);
    xerbla_(kFortranRoutine, &fortran_info, 6);
  } else if (cblas_xerbla) {
    cblas_xerbla(cblas_position(row_major, fortran_info), kCblasRoutine, "");
  } else {
    print_reference_message(cblas_position(row_major, fortran_info), kCblasRoutine);
  }
}

}  // namespace dlk::blas
