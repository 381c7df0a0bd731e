// OpenBLAS, loaded on first use: the CBLAS and OpenBLAS functions the CPU trainer calls are defined here and
// forward to libopenblas, opened with dlopen the first time one is called. Linking libopenblas instead costs
// every isoflop command several milliseconds at start (about 14,000 symbol relocations, its thread pool and
// libgfortran) although only `train` and the benchmarks use it.
#include <cblas.h>

#include "core/shared_library.hpp"

#ifndef ISOFLOP_OPENBLAS_PATH
#define ISOFLOP_OPENBLAS_PATH "libopenblas.so"
#endif

namespace {

struct OpenBlas {
  decltype(&::cblas_sgemm) sgemm = nullptr;
  decltype(&::cblas_dgemm) dgemm = nullptr;
  decltype(&::openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&::openblas_get_corename) get_corename = nullptr;
};

OpenBlas load() {
  constexpr const char* kLibrary = "libopenblas";
  // The runtime's soname first (Debian's alternatives choose the build), then the library found at configure.
  void* handle = isoflop::open_shared_library(kLibrary, {"libopenblas.so.0", ISOFLOP_OPENBLAS_PATH});
  OpenBlas blas;
  isoflop::bind_symbol(handle, kLibrary, "cblas_sgemm", &blas.sgemm);
  isoflop::bind_symbol(handle, kLibrary, "cblas_dgemm", &blas.dgemm);
  isoflop::bind_symbol(handle, kLibrary, "openblas_set_num_threads", &blas.set_num_threads);
  isoflop::bind_symbol(handle, kLibrary, "openblas_get_corename", &blas.get_corename);
  return blas;
}

// Loaded once, thread-safely; never closed.
const OpenBlas& blas() {
  static const OpenBlas loaded = load();
  return loaded;
}

}  // namespace

extern "C" {

void cblas_sgemm(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_a,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_b, OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST blasint k, OPENBLAS_CONST float alpha, OPENBLAS_CONST float* a,
                 OPENBLAS_CONST blasint lda, OPENBLAS_CONST float* b, OPENBLAS_CONST blasint ldb,
                 OPENBLAS_CONST float beta, float* c, OPENBLAS_CONST blasint ldc) {
  blas().sgemm(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_dgemm(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_a,
                 OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_b, OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n,
                 OPENBLAS_CONST blasint k, OPENBLAS_CONST double alpha, OPENBLAS_CONST double* a,
                 OPENBLAS_CONST blasint lda, OPENBLAS_CONST double* b, OPENBLAS_CONST blasint ldb,
                 OPENBLAS_CONST double beta, double* c, OPENBLAS_CONST blasint ldc) {
  blas().dgemm(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void openblas_set_num_threads(int num_threads) { blas().set_num_threads(num_threads); }

char* openblas_get_corename(void) { return blas().get_corename(); }

}  // extern "C"
