// The CPU reference layers (see layers.hpp): GEMMs through cblas (OpenBLAS), the rest OpenMP loops whose
// reductions run in a fixed order. One thread pool does all the work: OpenBLAS runs single-threaded inside
// OpenMP regions (large GEMMs split by rows, attention by head), so no second pool spins beside it.
#include "train/cpu/layers.hpp"

#include <cblas.h>

#include <omp.h>

#include <algorithm>
#include <cmath>

namespace isoflop::train::cpu {
namespace {

// Row-major C = alpha·op(A)·op(B) + beta·C, dispatched to sgemm or dgemm.
void gemm(bool ta, bool tb, int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
          float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda,
              B, ldb, beta, C, ldc);
}
void gemm(bool ta, bool tb, int M, int N, int K, double alpha, const double* A, int lda, const double* B, int ldb,
          double beta, double* C, int ldc) {
  cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M, N, K, alpha, A, lda,
              B, ldb, beta, C, ldc);
}

// The same GEMM with the M rows of C split evenly over the OpenMP threads, each calling the single-threaded
// BLAS on its block. Each element of C comes from one call, but the BLAS may block a call differently by its
// row count, so results repeat for a given thread count (and kernel set), not across counts.
template <typename T>
void gemm_rows(bool ta, bool tb, int M, int N, int K, T alpha, const T* A, int lda, const T* B, int ldb, T beta, T* C,
               int ldc) {
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int m0 = static_cast<int>(static_cast<long long>(M) * thread / threads);
    const int m1 = static_cast<int>(static_cast<long long>(M) * (thread + 1) / threads);
    if (m1 > m0) {
      // Row m of op(A) is row m of A, or column m of A when transposed.
      const T* a = ta ? A + m0 : A + static_cast<long long>(m0) * lda;
      gemm(ta, tb, m1 - m0, N, K, alpha, a, lda, B, ldb, beta, C + static_cast<long long>(m0) * ldc, ldc);
    }
  }
}

// Channel chunks for column reductions: each chunk sums its rows in ascending order, so the result does not
// depend on how many threads share the chunks.
constexpr int kChunk = 64;

// dst[c] += Σ_n src[n·C + c] for c in [0, C).
template <typename T>
void add_column_sums(T* dst, const T* src, int N, int C) {
  const int chunks = (C + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < chunks; ++k) {
    const int c0 = k * kChunk, c1 = std::min(C, c0 + kChunk);
    T acc[kChunk] = {};
    for (int n = 0; n < N; ++n) {
      const T* row = src + static_cast<long long>(n) * C;
      for (int c = c0; c < c1; ++c) acc[c - c0] += row[c];
    }
    for (int c = c0; c < c1; ++c) dst[c] += acc[c - c0];
  }
}

constexpr double kLayerNormEps = 1e-5;
constexpr double kGeluScale = 0.7978845608028654;  // √(2/π)

}  // namespace

template <typename T>
void encoder_forward(T* out, const int32_t* tokens, const T* wte, const T* wpe, int B, int Tn, int C) {
#pragma omp parallel for schedule(static)
  for (int bt = 0; bt < B * Tn; ++bt) {
    const int t = bt % Tn;
    T* o = out + static_cast<long long>(bt) * C;
    const T* e = wte + static_cast<long long>(tokens[bt]) * C;
    const T* p = wpe + static_cast<long long>(t) * C;
    for (int c = 0; c < C; ++c) o[c] = e[c] + p[c];
  }
}

template <typename T>
void encoder_backward(T* dwte, T* dwpe, const T* dout, const int32_t* tokens, int B, int Tn, int C, int /*V*/) {
  const int chunks = (C + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < chunks; ++k) {
    const int c0 = k * kChunk, c1 = std::min(C, c0 + kChunk);
    for (int bt = 0; bt < B * Tn; ++bt) {
      const T* d = dout + static_cast<long long>(bt) * C;
      T* e = dwte + static_cast<long long>(tokens[bt]) * C;
      T* p = dwpe + static_cast<long long>(bt % Tn) * C;
      for (int c = c0; c < c1; ++c) {
        e[c] += d[c];
        p[c] += d[c];
      }
    }
  }
}

template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, int N, int C) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<long long>(n) * C;
    T* o = out + static_cast<long long>(n) * C;
    double m = 0;
    for (int c = 0; c < C; ++c) m += x[c];
    m /= C;
    double v = 0;
    for (int c = 0; c < C; ++c) v += (x[c] - m) * (x[c] - m);
    v /= C;
    const double s = 1.0 / std::sqrt(v + kLayerNormEps);
    for (int c = 0; c < C; ++c) o[c] = static_cast<T>((x[c] - m) * s) * w[c] + b[c];
    mean[n] = static_cast<T>(m);
    rstd[n] = static_cast<T>(s);
  }
}

template <typename T>
void layernorm_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean, const T* rstd,
                        int N, int C) {
  // dinp row by row (independent rows)…
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    const T* x = inp + static_cast<long long>(n) * C;
    const T* d = dout + static_cast<long long>(n) * C;
    T* di = dinp + static_cast<long long>(n) * C;
    const T m = mean[n], s = rstd[n];
    double dnorm_mean = 0, dnorm_norm_mean = 0;
    for (int c = 0; c < C; ++c) {
      const T norm = (x[c] - m) * s;
      const T dnorm = w[c] * d[c];
      dnorm_mean += dnorm;
      dnorm_norm_mean += dnorm * norm;
    }
    dnorm_mean /= C;
    dnorm_norm_mean /= C;
    for (int c = 0; c < C; ++c) {
      const T norm = (x[c] - m) * s;
      const T dnorm = w[c] * d[c];
      di[c] += s * (dnorm - static_cast<T>(dnorm_mean) - norm * static_cast<T>(dnorm_norm_mean));
    }
  }
  // …then dw, db as column sums in a fixed row order.
  const int chunks = (C + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static)
  for (int k = 0; k < chunks; ++k) {
    const int c0 = k * kChunk, c1 = std::min(C, c0 + kChunk);
    T aw[kChunk] = {}, ab[kChunk] = {};
    for (int n = 0; n < N; ++n) {
      const T* x = inp + static_cast<long long>(n) * C;
      const T* d = dout + static_cast<long long>(n) * C;
      for (int c = c0; c < c1; ++c) {
        aw[c - c0] += (x[c] - mean[n]) * rstd[n] * d[c];
        ab[c - c0] += d[c];
      }
    }
    for (int c = c0; c < c1; ++c) {
      dw[c] += aw[c - c0];
      db[c] += ab[c - c0];
    }
  }
}

template <typename T>
void matmul_forward(T* out, const T* inp, const T* w, const T* bias, int N, int C, int OC) {
  gemm_rows(false, true, N, OC, C, T(1), inp, C, w, C, T(0), out, OC);
  if (!bias) return;
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    T* o = out + static_cast<long long>(n) * OC;
    for (int c = 0; c < OC; ++c) o[c] += bias[c];
  }
}

template <typename T>
void matmul_backward(T* dinp, T* dw, T* dbias, const T* dout, const T* inp, const T* w, int N, int C, int OC) {
  gemm_rows(false, false, N, C, OC, T(1), dout, OC, w, C, T(1), dinp, C);  // dinp (N,C) += dout (N,OC) · w (OC,C)
  gemm_rows(true, false, OC, C, N, T(1), dout, OC, inp, C, T(1), dw, C);   // dw (OC,C) += doutᵀ (OC,N) · inp (N,C)
  if (dbias) add_column_sums(dbias, dout, N, OC);
}

// Head h of sequence b in a (B,T,3C) buffer laid out [q | k | v]: the first element of its q, k and v columns
// (each (T,hs) with row stride 3C).
template <typename T>
struct HeadColumns {
  T* q;
  T* k;
  T* v;
};
template <typename T>
HeadColumns<T> head_columns(T* qkv, int b, int h, int Tn, int C, int hs) {
  T* q = qkv + static_cast<long long>(b) * Tn * 3LL * C + static_cast<long long>(h) * hs;
  return {q, q + C, q + 2LL * C};
}

// The sizes both attention passes work in: head size, the scores' 1/√hs scale, the (B,T,3C) row stride.
template <typename T>
struct HeadSizes {
  int hs;
  T scale;
  long long C3;
};
template <typename T>
HeadSizes<T> head_sizes(int C, int NH) {
  const int hs = C / NH;
  return {hs, static_cast<T>(1.0 / std::sqrt(static_cast<double>(hs))), 3LL * C};
}

// body(bh, b, h) for head h of sequence b (bh = b·NH + h), one head per iteration in parallel: heads are
// independent and write disjoint columns.
template <typename Body>
void for_each_head(int B, int NH, const Body& body) {
#pragma omp parallel for schedule(static)
  for (int bh = 0; bh < B * NH; ++bh) body(bh, bh / NH, bh % NH);
}

template <typename T>
void attention_forward(T* out, T* att, const T* qkv, int B, int Tn, int C, int NH) {
  const HeadSizes<T> hd = head_sizes<T>(C, NH);
  for_each_head(B, NH, [&](int bh, int b, int h) {
    const auto [q, k, v] = head_columns(qkv, b, h, Tn, C, hd.hs);
    T* p = att + static_cast<long long>(bh) * Tn * Tn;
    gemm(false, true, Tn, Tn, hd.hs, hd.scale, q, hd.C3, k, hd.C3, T(0), p, Tn);  // scores (T,T) = q kᵀ / √hs
    for (int t = 0; t < Tn; ++t) {  // causal softmax: row t sees positions 0..t
      T* row = p + static_cast<long long>(t) * Tn;
      T mx = row[0];
      for (int j = 1; j <= t; ++j) mx = std::max(mx, row[j]);
      double sum = 0;
      for (int j = 0; j <= t; ++j) {
        row[j] = std::exp(row[j] - mx);
        sum += row[j];
      }
      const T inv = static_cast<T>(1.0 / sum);
      for (int j = 0; j <= t; ++j) row[j] *= inv;
      for (int j = t + 1; j < Tn; ++j) row[j] = T(0);
    }
    T* y = out + static_cast<long long>(b) * Tn * C + h * hd.hs;
    gemm(false, false, Tn, hd.hs, Tn, T(1), p, Tn, v, hd.C3, T(0), y, C);  // y = p v
  });
}

// Each head has its own (T,T) block of scratch.
template <typename T>
void attention_backward(T* dqkv, T* scratch, const T* dout, const T* qkv, const T* att, int B, int Tn, int C,
                        int NH) {
  const HeadSizes<T> hd = head_sizes<T>(C, NH);
  for_each_head(B, NH, [&](int bh, int b, int h) {
    const auto [q, k, v] = head_columns(qkv, b, h, Tn, C, hd.hs);
    const auto [dq, dk, dv] = head_columns(dqkv, b, h, Tn, C, hd.hs);
    const T* p = att + static_cast<long long>(bh) * Tn * Tn;
    const T* dy = dout + static_cast<long long>(b) * Tn * C + h * hd.hs;
    T* ds = scratch + static_cast<long long>(bh) * Tn * Tn;
    gemm(false, true, Tn, Tn, hd.hs, T(1), dy, C, v, hd.C3, T(0), ds, Tn);   // dp (T,T) = dy vᵀ
    gemm(true, false, Tn, hd.hs, Tn, T(1), p, Tn, dy, C, T(1), dv, hd.C3);   // dv += pᵀ dy
    for (int t = 0; t < Tn; ++t) {  // softmax backward: ds = p ⊙ (dp − Σ p·dp), zero above the diagonal
      const T* pr = p + static_cast<long long>(t) * Tn;
      T* dr = ds + static_cast<long long>(t) * Tn;
      double dot = 0;
      for (int j = 0; j <= t; ++j) dot += pr[j] * dr[j];
      for (int j = 0; j <= t; ++j) dr[j] = pr[j] * (dr[j] - static_cast<T>(dot));
      for (int j = t + 1; j < Tn; ++j) dr[j] = T(0);
    }
    gemm(false, false, Tn, hd.hs, Tn, hd.scale, ds, Tn, k, hd.C3, T(1), dq, hd.C3);  // dq += ds k / √hs
    gemm(true, false, Tn, hd.hs, Tn, hd.scale, ds, Tn, q, hd.C3, T(1), dk, hd.C3);   // dk += dsᵀ q / √hs
  });
}

// 0.5·(1 + tanh u) = σ(2u) exactly, so GELU is x·σ(2u): one exponential and no cancellation, where libm's tanh
// costs an expm1 and was a third of a CPU step.
template <typename T>
T gelu_sigmoid(T x) {
  const T u = static_cast<T>(kGeluScale) * (x + T(0.044715) * x * x * x);
  return T(1) / (T(1) + std::exp(T(-2) * u));
}

template <typename T>
void gelu_forward(T* out, const T* inp, long long n) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) out[i] = inp[i] * gelu_sigmoid(inp[i]);
}

template <typename T>
void gelu_backward(T* dinp, const T* inp, const T* dout, long long n) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) {
    const T x = inp[i];
    const T s = gelu_sigmoid(x);
    // d/dx x·σ(2u) = σ + x·2σ(1 − σ)·u′, u′ = √(2/π)(1 + 3·0.044715·x²); 2σ(1 − σ) = sech²(u)/2.
    const T local = s + x * T(2) * s * (T(1) - s) * static_cast<T>(kGeluScale) * (T(1) + T(3 * 0.044715) * x * x);
    dinp[i] += local * dout[i];
  }
}

template <typename T>
void residual_forward(T* out, const T* a, const T* b, long long n) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

template <typename T>
void residual_backward(T* da, T* db, const T* dout, long long n) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; ++i) {
    da[i] += dout[i];
    db[i] += dout[i];
  }
}

template <typename T>
double crossentropy_forward(T* logits, T* losses, const int32_t* targets, int N, int V) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    T* row = logits + static_cast<long long>(n) * V;
    T mx = row[0];
    for (int v = 1; v < V; ++v) mx = std::max(mx, row[v]);
    double sum = 0;
    for (int v = 0; v < V; ++v) {
      row[v] = std::exp(row[v] - mx);
      sum += row[v];
    }
    const T inv = static_cast<T>(1.0 / sum);
    for (int v = 0; v < V; ++v) row[v] *= inv;
    // −log p computed from the logit margin would be more exact, but p ≥ exp(−88) for any sane logits.
    losses[n] = static_cast<T>(-std::log(std::max(static_cast<double>(row[targets[n]]), 1e-300)));
  }
  double total = 0;
  for (int n = 0; n < N; ++n) total += losses[n];
  return total / N;
}

template <typename T>
void crossentropy_backward(T* probs, const int32_t* targets, int N, int V, T scale) {
#pragma omp parallel for schedule(static)
  for (int n = 0; n < N; ++n) {
    T* row = probs + static_cast<long long>(n) * V;
    for (int v = 0; v < V; ++v) row[v] *= scale;
    row[targets[n]] -= scale;
  }
}

#define ISOFLOP_INSTANTIATE(T)                                                                                      \
  template void encoder_forward<T>(T*, const int32_t*, const T*, const T*, int, int, int);                          \
  template void encoder_backward<T>(T*, T*, const T*, const int32_t*, int, int, int, int);                          \
  template void layernorm_forward<T>(T*, T*, T*, const T*, const T*, const T*, int, int);                           \
  template void layernorm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*, int, int);      \
  template void matmul_forward<T>(T*, const T*, const T*, const T*, int, int, int);                                 \
  template void matmul_backward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, int);                        \
  template void attention_forward<T>(T*, T*, const T*, int, int, int, int);                                         \
  template void attention_backward<T>(T*, T*, const T*, const T*, const T*, int, int, int, int);                    \
  template void gelu_forward<T>(T*, const T*, long long);                                                           \
  template void gelu_backward<T>(T*, const T*, const T*, long long);                                                \
  template void residual_forward<T>(T*, const T*, const T*, long long);                                             \
  template void residual_backward<T>(T*, T*, const T*, long long);                                                  \
  template double crossentropy_forward<T>(T*, T*, const int32_t*, int, int);                                        \
  template void crossentropy_backward<T>(T*, const int32_t*, int, int, T);

ISOFLOP_INSTANTIATE(float)
ISOFLOP_INSTANTIATE(double)
#undef ISOFLOP_INSTANTIATE

}  // namespace isoflop::train::cpu
