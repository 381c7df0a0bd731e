// The CUDA GPT's matrix layers: the linear layers' forward and backward GEMMs (cuBLASLt, bias and residual
// fused in the epilogue) and attention as strided-batched GEMMs over the heads around the softmax kernels.
// The rest of the model (buffers, passes, optimiser) is in gpt.cu.
#include <cmath>

#include "train/cuda/gpt.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {

template <typename T>
void Gpt<T>::linear_forward(T* out, const T* inp, const T* w, const T* bias, int C, int OC, const T* residual) {
  GemmOp op;  // out (BT,OC) = inp (BT,C) · wᵀ [+ residual] + bias
  op.trans_b = true;
  op.m = batch_ * config_.seq;
  op.n = OC;
  op.k = C;
  op.a = inp;
  op.lda = C;
  op.b = w;
  op.ldb = C;
  op.d = out;
  op.ldd = OC;
  op.c = residual;
  op.bias = bias;
  op.ab_type = op.d_type = DType<T>::kCuda;
  gemm_->run(op, stream_.get());
}

template <typename T>
void Gpt<T>::linear_backward(T* dinp, float* dw, float* dbias, const T* dout, const T* inp, const T* w, int C,
                             int OC) {
  const int BT = batch_ * config_.seq;
  GemmOp dx;  // dinp (BT,C) = dout (BT,OC) · w (OC,C), written
  dx.m = BT;
  dx.n = C;
  dx.k = OC;
  dx.a = dout;
  dx.lda = OC;
  dx.b = w;
  dx.ldb = C;
  dx.d = dinp;
  dx.ldd = C;
  dx.ab_type = dx.d_type = DType<T>::kCuda;
  gemm_->run(dx, stream_.get());
  GemmOp dW;  // dw (OC,C) += doutᵀ (OC,BT) · inp (BT,C), accumulated in fp32
  dW.trans_a = true;
  dW.m = OC;
  dW.n = C;
  dW.k = BT;
  dW.a = dout;
  dW.lda = OC;
  dW.b = inp;
  dW.ldb = C;
  dW.d = dw;
  dW.ldd = C;
  dW.c = dw;
  dW.ab_type = DType<T>::kCuda;
  dW.d_type = CUDA_R_32F;
  gemm_->run(dW, stream_.get());
  if (dbias) bias_backward(dbias, scratch_.columns, dout, BT, OC, stream_.get());
}

namespace {

// One strided-batched GEMM over the B·NH heads: every matrix of the batch is (rows × ld) with the given stride.
GemmOp head_gemm(bool ta, bool tb, int m, int n, int k, const void* a, long long lda, long long sa, const void* b,
                 long long ldb, long long sb, void* d, long long ldd, long long sd, int batch, float alpha,
                 cudaDataType_t ab, cudaDataType_t dt) {
  GemmOp op;
  op.trans_a = ta;
  op.trans_b = tb;
  op.m = m;
  op.n = n;
  op.k = k;
  op.a = a;
  op.lda = lda;
  op.stride_a = sa;
  op.b = b;
  op.ldb = ldb;
  op.stride_b = sb;
  op.d = d;
  op.ldd = ldd;
  op.stride_d = sd;
  op.batch = batch;
  op.alpha = alpha;
  op.ab_type = ab;
  op.d_type = dt;
  return op;
}

}  // namespace

template <typename T>
void Gpt<T>::attention_forward(T* atty, T* att, const T* qkv) {
  const int B = batch_, Tn = config_.seq, NH = config_.heads, hs = config_.head_size();
  const long long head = static_cast<long long>(Tn) * hs, square = static_cast<long long>(Tn) * Tn;
  const int heads = B * NH;
  const size_t plane = static_cast<size_t>(B) * Tn * config_.d_model;
  T* q = scratch_.qkvr;
  T* k = q + plane;
  T* v = k + plane;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
  const cudaDataType_t t = DType<T>::kCuda;
  cudaStream_t s = stream_.get();
  attention_split_heads(q, k, v, qkv, B, Tn, NH, hs, s);
  // preatt (T,T) = q kᵀ / √hs, per head, fp32
  gemm_->run(head_gemm(false, true, Tn, Tn, hs, q, hs, head, k, hs, head, scratch_.preatt, Tn, square, heads, scale,
                       t, CUDA_R_32F),
             s);
  causal_softmax_forward(att, scratch_.preatt, heads * Tn, Tn, s);
  // y (T,hs) = att v, per head
  gemm_->run(head_gemm(false, false, Tn, hs, Tn, att, Tn, square, v, hs, head, scratch_.y, hs, head, heads, 1.0f, t, t),
             s);
  attention_merge_heads(atty, scratch_.y, B, Tn, NH, hs, s);
}

template <typename T>
void Gpt<T>::attention_backward(T* dqkv, const T* datty, const T* qkv, const T* att) {
  const int B = batch_, Tn = config_.seq, NH = config_.heads, hs = config_.head_size();
  const long long head = static_cast<long long>(Tn) * hs, square = static_cast<long long>(Tn) * Tn;
  const int heads = B * NH;
  const size_t plane = static_cast<size_t>(B) * Tn * config_.d_model;
  T* q = scratch_.qkvr;
  T* k = q + plane;
  T* v = k + plane;
  T* dq = scratch_.dqkvr;
  T* dk = dq + plane;
  T* dv = dk + plane;
  T* dy = scratch_.y;
  float* datt = scratch_.preatt;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hs)));
  const cudaDataType_t t = DType<T>::kCuda;
  cudaStream_t s = stream_.get();
  attention_split_heads(q, k, v, qkv, B, Tn, NH, hs, s);  // recomputed rather than kept per layer
  attention_merge_heads_backward(dy, datty, B, Tn, NH, hs, s);
  // datt (T,T) = dy vᵀ, fp32
  gemm_->run(head_gemm(false, true, Tn, Tn, hs, dy, hs, head, v, hs, head, datt, Tn, square, heads, 1.0f, t,
                       CUDA_R_32F),
             s);
  // dv (T,hs) = attᵀ dy
  gemm_->run(head_gemm(true, false, Tn, hs, Tn, att, Tn, square, dy, hs, head, dv, hs, head, heads, 1.0f, t, t), s);
  causal_softmax_backward(scratch_.dpreatt, datt, att, heads * Tn, Tn, s);
  // dq = dpreatt k / √hs;  dk = dpreattᵀ q / √hs
  gemm_->run(head_gemm(false, false, Tn, hs, Tn, scratch_.dpreatt, Tn, square, k, hs, head, dq, hs, head, heads, scale,
                       t, t),
             s);
  gemm_->run(head_gemm(true, false, Tn, hs, Tn, scratch_.dpreatt, Tn, square, q, hs, head, dk, hs, head, heads, scale,
                       t, t),
             s);
  attention_split_heads_backward(dqkv, dq, dk, dv, B, Tn, NH, hs, s);
}

// gpt.cu instantiates the class; these members are defined here.
#define ISOFLOP_GPT_LAYER_MEMBERS(T)                                                                          \
  template void Gpt<T>::linear_forward(T*, const T*, const T*, const T*, int, int, const T*);               \
  template void Gpt<T>::linear_backward(T*, float*, float*, const T*, const T*, const T*, int, int);        \
  template void Gpt<T>::attention_forward(T*, T*, const T*);                                                \
  template void Gpt<T>::attention_backward(T*, const T*, const T*, const T*);
ISOFLOP_GPT_LAYER_MEMBERS(float)
ISOFLOP_GPT_LAYER_MEMBERS(bf16)
#undef ISOFLOP_GPT_LAYER_MEMBERS

}  // namespace isoflop::train::cuda
