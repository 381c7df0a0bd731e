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
  static constexpr const char* kLibrary = "libopenblas";
  static constexpr const char* kSoname = "libopenblas.so.0";  // Debian's alternatives choose the build
  static constexpr const char* kPath = ISOFLOP_OPENBLAS_PATH;

  decltype(&::cblas_sgemm) sgemm = nullptr;
  decltype(&::cblas_dgemm) dgemm = nullptr;
  decltype(&::openblas_set_num_threads) set_num_threads = nullptr;
  decltype(&::openblas_get_corename) get_corename = nullptr;

  void bind(void* handle) {
    isoflop::bind_symbol(handle, kLibrary, "cblas_sgemm", &sgemm);
    isoflop::bind_symbol(handle, kLibrary, "cblas_dgemm", &dgemm);
    isoflop::bind_symbol(handle, kLibrary, "openblas_set_num_threads", &set_num_threads);
    isoflop::bind_symbol(handle, kLibrary, "openblas_get_corename", &get_corename);
  }
};

const OpenBlas& blas() { return isoflop::loaded_functions<OpenBlas>(); }

}  // namespace

extern "C" {

// cblas_sgemm and cblas_dgemm: the same entry point for float and double.
#define ISOFLOP_CBLAS_GEMM(name, Real)                                                                             \
  void cblas_##name(OPENBLAS_CONST enum CBLAS_ORDER order, OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_a,          \
                    OPENBLAS_CONST enum CBLAS_TRANSPOSE trans_b, OPENBLAS_CONST blasint m, OPENBLAS_CONST blasint n, \
                    OPENBLAS_CONST blasint k, OPENBLAS_CONST Real alpha, OPENBLAS_CONST Real* a,                  \
                    OPENBLAS_CONST blasint lda, OPENBLAS_CONST Real* b, OPENBLAS_CONST blasint ldb,               \
                    OPENBLAS_CONST Real beta, Real* c, OPENBLAS_CONST blasint ldc) {                              \
    blas().name(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                           \
  }
ISOFLOP_CBLAS_GEMM(sgemm, float)
ISOFLOP_CBLAS_GEMM(dgemm, double)
#undef ISOFLOP_CBLAS_GEMM

void openblas_set_num_threads(int num_threads) { blas().set_num_threads(num_threads); }

char* openblas_get_corename(void) { return blas().get_corename(); }

}  // extern "C"
