// The symbols libdlk_blas exports; everything else stays hidden.
#pragma once

#define DLK_BLAS_EXPORT __attribute__((visibility("default")))
