// OpenBLAS, loaded on first use: the CBLAS and OpenBLAS functions the CPU trainer calls are defined here and
// forward to libopenblas, opened with dlopen the first time one is called. Linking libopenblas instead costs
// every isoflop command several milliseconds at start (about 14,000 symbol relocations, its thread pool and
// libgfortran) although only `train` and the benchmarks use it.
#include <cblas.h>
#include <dlfcn.h>

#include <string>

#include "core/error.hpp"

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

template <typename F>
void bind(void* handle, const char* name, F* f) {
  *f = reinterpret_cast<F>(dlsym(handle, name));
  if (!*f) throw isoflop::Error(std::string("OpenBLAS has no ") + name);
}

OpenBlas load() {
  // The runtime's soname first (Debian's alternatives choose the build), then the library found at configure.
  void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (!handle) handle = dlopen(ISOFLOP_OPENBLAS_PATH, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw isoflop::Error(std::string("libopenblas could not be loaded: ") + (why ? why : "unknown error"));
  }
  OpenBlas blas;
  bind(handle, "cblas_sgemm", &blas.sgemm);
  bind(handle, "cblas_dgemm", &blas.dgemm);
  bind(handle, "openblas_set_num_threads", &blas.set_num_threads);
  bind(handle, "openblas_get_corename", &blas.get_corename);
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
