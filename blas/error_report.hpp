// Argument errors go where the reference BLAS sends them, so that a program that
// installs its own handlers (as the BLAS and CBLAS test programs do) sees every
// error exit: xerbla_ for the Fortran interface, cblas_xerbla for the C one. The
// handlers are the program's own or the system BLAS's; with neither loaded, the
// reference's message is printed on stderr and the call returns, as Debian's
// reference xerbla_ does.
#pragma once

namespace dlk::blas {

// sgemm_ called directly: xerbla_("SGEMM ", info).
void report_fortran_error(const char *routine, int info);

// cblas_sgemm, a C argument it checks itself (layout, TransA, TransB):
// cblas_xerbla(position, "cblas_sgemm", form, value).
void report_cblas_error(bool row_major, int position, const char *form, int value);

// cblas_sgemm, a rule of the Fortran call it maps onto (fortran_info numbers that
// call's arguments; row-major swaps M with N and A with B). The reference reports
// it through xerbla_ with CBLAS's called-from-C flag raised, and its xerbla_
// renumbers for the C argument list; the same happens here when a reference CBLAS
// is loaded, else cblas_xerbla gets the C position directly.
void report_cblas_fortran_error(bool row_major, int fortran_info);

}  // namespace dlk::blas
