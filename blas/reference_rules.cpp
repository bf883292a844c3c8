#include "blas/reference_rules.hpp"

#include <algorithm>
#include <cctype>

namespace dlk::blas {

bool same_letter(char given, char expected) {
  return std::toupper(static_cast<unsigned char>(given)) ==
         std::toupper(static_cast<unsigned char>(expected));
}

namespace {
bool valid_transpose(char t) {
  return same_letter(t, 'N') || same_letter(t, 'T') || same_letter(t, 'C');
}
}  // namespace

int sgemm_argument_error(char transa, char transb, int m, int n, int k, int lda, int ldb,
                         int ldc) {
  const int rows_a = same_letter(transa, 'N') ? m : k;
  const int rows_b = same_letter(transb, 'N') ? k : n;
  if (!valid_transpose(transa)) return 1;
  if (!valid_transpose(transb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, rows_a)) return 8;
  if (ldb < std::max(1, rows_b)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

}  // namespace dlk::blas
