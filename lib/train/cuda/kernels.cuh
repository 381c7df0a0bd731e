// The CUDA backend's hand-written kernels, one file per layer, each the twin of a CPU reference function in
// lib/train/cpu/layers.hpp (same shapes, same formulas). T is the activation type (float or bf16); every
// kernel computes in fp32. Launchers enqueue on `stream` and check the launch; nothing here allocates.
// Unlike the CPU layers, which accumulate into their gradient outputs, the launchers say per output whether
// they write (=) or accumulate (+=).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace isoflop::train::cuda {

// ---- scratch for the deterministic column sums (reduce.cuh) ------------------------------------------------
inline constexpr int kMaxSlices = 128;  // row slices of a column sum: the grid's second dimension
// Scratch floats a column sum of `outputs` terms over `columns` columns needs (any number of rows).
inline size_t column_scratch_floats(int outputs, int columns) {
  return static_cast<size_t>(outputs) * kMaxSlices * columns;
}

// ---- encoder.cu: token + position embedding ----------------------------------------------------------------
// out (B,T,C) = wte[tokens] + wpe[t].
template <typename T>
void encoder_forward(T* out, const int32_t* tokens, const T* wte, const T* wpe, int B, int Tn, int C,
                     cudaStream_t stream);
// dwpe (T,C) += Σ_b dout[b,t]; dwte (V,C) += Σ over the positions holding each token, deterministic: the
// positions come grouped by token (host-built buckets: bucket_tokens[u], positions
// bucket_positions[bucket_offsets[u] .. bucket_offsets[u+1]) in ascending order), one block per token.
template <typename T>
void encoder_backward(float* dwte, float* dwpe, const T* dout, const int32_t* bucket_tokens,
                      const int32_t* bucket_offsets, const int32_t* bucket_positions, int buckets, int B, int Tn,
                      int C, cudaStream_t stream);

// ---- layernorm.cu: LayerNorm over C, eps 1e-5 (GPT-2) ---------------------------------------------------------
// out (N,C), mean and rstd (N) written.
template <typename T>
void layernorm_forward(T* out, float* mean, float* rstd, const T* inp, const T* w, const T* b, int N, int C,
                       cudaStream_t stream);
// dinp (N,C) +=, dw and db (C) +=. scratch: column_scratch_floats(2, C) floats. dinp must not alias dout or inp.
template <typename T>
void layernorm_backward(T* dinp, float* dw, float* db, float* scratch, const T* dout, const T* inp, const T* w,
                        const float* mean, const float* rstd, int N, int C, cudaStream_t stream);

// ---- bias.cu ----------------------------------------------------------------------------------------------------
// dbias (OC) += Σ_n dout[n, :]. scratch: column_scratch_floats(1, OC) floats.
template <typename T>
void bias_backward(float* dbias, float* scratch, const T* dout, int N, int OC, cudaStream_t stream);

// ---- attention.cu: layout changes and the fused causal softmax ----------------------------------------------
// q, k, v (B,NH,T,hs) = the three C-wide slices of qkv (B,T,3C), split by head (written).
template <typename T>
void attention_split_heads(T* q, T* k, T* v, const T* qkv, int B, int Tn, int NH, int hs, cudaStream_t stream);
// out (B,T,C) = y (B,NH,T,hs) with the heads side by side again (written).
template <typename T>
void attention_merge_heads(T* out, const T* y, int B, int Tn, int NH, int hs, cudaStream_t stream);
// Backward of split: dqkv (B,T,3C) = dq, dk, dv gathered back (written).
template <typename T>
void attention_split_heads_backward(T* dqkv, const T* dq, const T* dk, const T* dv, int B, int Tn, int NH, int hs,
                                    cudaStream_t stream);
// Backward of merge: dy (B,NH,T,hs) = dout (B,T,C) split by head (written).
template <typename T>
void attention_merge_heads_backward(T* dy, const T* dout, int B, int Tn, int NH, int hs, cudaStream_t stream);
// att (rows,T) = causal softmax of preatt: row r is position t = r mod T and sees columns 0..t; the rest are
// written as 0 (written). preatt already carries the 1/√hs scale.
template <typename T>
void causal_softmax_forward(T* att, const float* preatt, int rows, int Tn, cudaStream_t stream);
// dpreatt = att ⊙ (datt − Σ_j att·datt) on and below the diagonal, 0 above (written).
template <typename T>
void causal_softmax_backward(T* dpreatt, const float* datt, const T* att, int rows, int Tn, cudaStream_t stream);

// ---- gelu.cu: GELU, tanh approximation (Hendrycks & Gimpel 2016, as GPT-2 and the CPU reference) ---------------
template <typename T>
void gelu_forward(T* out, const T* inp, long long n, cudaStream_t stream);
// dinp = gelu'(inp) · dout (written); dinp may be dout itself.
template <typename T>
void gelu_backward(T* dinp, const T* inp, const T* dout, long long n, cudaStream_t stream);

// ---- classifier.cu: softmax over the vocabulary fused with the cross-entropy ---------------------------------
// losses (N) = −log softmax(logits[n])[targets[n]] (written). With dlogits non-null, also dlogits (N,V) =
// (softmax − onehot(target)) · scale (written); dlogits may be the logits buffer itself (T = float).
template <typename T>
void crossentropy_forward_backward(float* losses, T* dlogits, const float* logits, const int32_t* targets, int N,
                                   int V, float scale, cudaStream_t stream);

// ---- optimizer.cu ------------------------------------------------------------------------------------------
// The host-computed constants of one AdamW step for one tensor, as float (as adamw_update_host uses them).
struct AdamWScalars {
  float lr, beta1, beta2, eps, weight_decay, grad_scale, inv_c1, inv_c2;
};
// AdamW in place over n elements, operation for operation as adamw_update_host (no fused multiply-adds).
void adamw_update(float* params, float* m, float* v, const float* grads, size_t n, const AdamWScalars& s,
                  cudaStream_t stream);
// out (n) = in converted to T (the per-step bf16 copy of the fp32 master parameters).
template <typename T>
void convert_parameters(T* out, const float* in, size_t n, cudaStream_t stream);

// ---- norm.cu: global gradient norm ---------------------------------------------------------------------------
inline constexpr int kNormBlocks = 1024;
// *result (device) = Σ x², accumulated in double in a fixed order (deterministic). partial: kNormBlocks doubles.
void sum_squares(double* result, double* partial, const float* x, size_t n, cudaStream_t stream);

}  // namespace isoflop::train::cuda
