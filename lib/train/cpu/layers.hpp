// The CPU reference layers: one forward and one backward function per layer, llm.c-style, with shapes in
// comments (B batch, T time, C channels, V vocab, NH heads). Backward functions ACCUMULATE (+=) into their
// gradient outputs, which the caller zeroes once per step. Instantiated for float (training) and double
// (finite-difference checks). Every reduction runs in a fixed order, so results are deterministic for a given
// thread count.
#pragma once

#include <cstdint>

namespace isoflop::train::cpu {

// out = wte[token] + wpe[t].  out (B,T,C), tokens (B,T), wte (V,C), wpe (T,C).
template <typename T>
void encoder_forward(T* out, const int32_t* tokens, const T* wte, const T* wpe, int B, int Tn, int C);
template <typename T>
void encoder_backward(T* dwte, T* dwpe, const T* dout, const int32_t* tokens, int B, int Tn, int C, int V);

// LayerNorm over the last axis of N rows. out, inp (N,C); mean, rstd (N); w, b (C). eps = 1e-5 (GPT-2).
template <typename T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, int N, int C);
template <typename T>
void layernorm_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean, const T* rstd,
                        int N, int C);

// out = inp · wᵀ + bias.  out (N,OC), inp (N,C), w (OC,C), bias (OC) or null. GEMMs through cblas.
template <typename T>
void matmul_forward(T* out, const T* inp, const T* w, const T* bias, int N, int C, int OC);
template <typename T>
void matmul_backward(T* dinp, T* dw, T* dbias, const T* dout, const T* inp, const T* w, int N, int C, int OC);

// Causal multi-head self-attention. qkv (B,T,3C) holds q, k, v side by side; out (B,T,C); att (B,NH,T,T) keeps
// the softmax probabilities for the backward pass (zero above the diagonal). scratch (B,NH,T,T): one (T,T)
// block per head, so heads run in parallel.
template <typename T>
void attention_forward(T* out, T* att, const T* qkv, int B, int Tn, int C, int NH);
template <typename T>
void attention_backward(T* dqkv, T* scratch, const T* dout, const T* qkv, const T* att, int B, int Tn, int C, int NH);

// GELU, tanh approximation (Hendrycks & Gimpel 2016, as in GPT-2). out, inp (n).
template <typename T>
void gelu_forward(T* out, const T* inp, long long n);
template <typename T>
void gelu_backward(T* dinp, const T* inp, const T* dout, long long n);

// out = a + b (n); backward adds dout to both.
template <typename T>
void residual_forward(T* out, const T* a, const T* b, long long n);
template <typename T>
void residual_backward(T* da, T* db, const T* dout, long long n);

// Softmax cross-entropy per position. logits (N,V) are overwritten by the probabilities; losses (N) get
// −log p[target]. Returns the mean loss over the N positions (summed in order, in double).
template <typename T>
double crossentropy_forward(T* logits, T* losses, const int32_t* targets, int N, int V);
// dlogits = (probs − onehot(target)) · scale, written (not accumulated) over probs in place.
template <typename T>
void crossentropy_backward(T* probs, const int32_t* targets, int N, int V, T scale);

}  // namespace isoflop::train::cpu
