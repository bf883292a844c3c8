// <immintrin.h> for code that builds with -Werror on GCC 12, which reports the
// _mm512_undefined_* pass-through values inside its own AVX-512 headers as
// (maybe) uninitialized (GCC bug 105593); silenced for those headers only.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <immintrin.h>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
