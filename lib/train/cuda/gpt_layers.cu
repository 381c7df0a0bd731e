// The CUDA GPT's matrix layers: the linear layers' forward and backward GEMMs (cuBLASLt, bias and residual
// fused in the epilogue) and attention as strided-batched GEMMs over the heads around the softmax kernels.
// The rest of the model (buffers, passes, optimiser) is in gpt.cu.
#include <cmath>

#include "train/cuda/gpt.cuh"
#include "train/cuda/kernels.cuh"

namespace isoflop::train::cuda {

template <typename T>
void Gpt<T>::linear_forward(void* out, cudaDataType_t out_type, const T* inp, const T* w, const T* bias, int C,
                            int OC, const void* residual) {
  const GemmOp op = linear_forward_gemm(batch_ * config_.seq, C, OC, out, out_type, inp, w, bias, residual,
                                        DType<T>::kCuda);
  gemm_->run(op, stream_.get());
}

template <typename T>
void Gpt<T>::linear_backward(T* dinp, float* dw, float* dbias, const T* dout, const T* inp, const T* w, int C,
                             int OC) {
  const int BT = batch_ * config_.seq;
  gemm_->run(linear_dinp_gemm(BT, C, OC, dinp, dout, w, DType<T>::kCuda), stream_.get());
  gemm_->run(linear_dweight_gemm(BT, C, OC, dw, dout, inp, DType<T>::kCuda), stream_.get());
  if (dbias) bias_backward(dbias, scratch_.columns, dout, BT, OC, stream_.get());
}

template <typename T>
typename Gpt<T>::HeadLayout Gpt<T>::head_layout() const {
  HeadLayout h;
  h.B = batch_;
  h.Tn = config_.seq;
  h.NH = config_.heads;
  h.hs = config_.head_size();
  h.heads = h.B * h.NH;
  h.plane = static_cast<size_t>(h.B) * h.Tn * config_.d_model;
  h.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(h.hs)));
  h.q = scratch_.qkvr;
  h.k = h.q + h.plane;
  h.v = h.k + h.plane;
  return h;
}

// The attention GEMMs run over all B·NH heads at once: every head's q, k, v, scores and output are packed
// (T,hs) or (T,T) matrices, one after another.
template <typename T>
void Gpt<T>::attention_forward(T* atty, T* att, const T* qkv) {
  const HeadLayout h = head_layout();
  const int Tn = h.Tn, hs = h.hs;
  const cudaDataType_t t = DType<T>::kCuda;
  cudaStream_t s = stream_.get();
  attention_split_heads(h.q, h.k, h.v, qkv, h.B, Tn, h.NH, hs, s);
  // preatt (T,T) = q kᵀ / √hs, per head, fp32
  gemm_->run(packed_gemm(false, true, Tn, Tn, hs, h.q, h.k, scratch_.preatt, t, CUDA_R_32F, h.heads, h.scale), s);
  causal_softmax_forward(att, scratch_.preatt, h.heads * Tn, Tn, s);
  // y (T,hs) = att v, per head
  gemm_->run(packed_gemm(false, false, Tn, hs, Tn, att, h.v, scratch_.y, t, t, h.heads), s);
  attention_merge_heads(atty, scratch_.y, h.B, Tn, h.NH, hs, s);
}

template <typename T>
void Gpt<T>::attention_backward(T* dqkv, const T* datty, const T* qkv, const T* att) {
  const HeadLayout h = head_layout();
  const int Tn = h.Tn, hs = h.hs;
  T* dq = scratch_.dqkvr;
  T* dk = dq + h.plane;
  T* dv = dk + h.plane;
  T* dy = scratch_.y;
  float* datt = scratch_.preatt;
  const cudaDataType_t t = DType<T>::kCuda;
  cudaStream_t s = stream_.get();
  attention_split_heads(h.q, h.k, h.v, qkv, h.B, Tn, h.NH, hs, s);  // recomputed rather than kept per layer
  attention_merge_heads_backward(dy, datty, h.B, Tn, h.NH, hs, s);
  // datt (T,T) = dy vᵀ, fp32
  gemm_->run(packed_gemm(false, true, Tn, Tn, hs, dy, h.v, datt, t, CUDA_R_32F, h.heads), s);
  // dv (T,hs) = attᵀ dy
  gemm_->run(packed_gemm(true, false, Tn, hs, Tn, att, dy, dv, t, t, h.heads), s);
  causal_softmax_backward(scratch_.dpreatt, datt, att, h.heads * Tn, Tn, s);
  // dq = dpreatt k / √hs;  dk = dpreattᵀ q / √hs
  gemm_->run(packed_gemm(false, false, Tn, hs, Tn, scratch_.dpreatt, h.k, dq, t, t, h.heads, h.scale), s);
  gemm_->run(packed_gemm(true, false, Tn, hs, Tn, scratch_.dpreatt, h.q, dk, t, t, h.heads, h.scale), s);
  attention_split_heads_backward(dqkv, dq, dk, dv, h.B, Tn, h.NH, hs, s);
}

// gpt.cu instantiates the class; these members are defined here.
#define ISOFLOP_GPT_LAYER_MEMBERS(T)                                                                          \
  template void Gpt<T>::linear_forward(void*, cudaDataType_t, const T*, const T*, const T*, int, int,        \
                                       const void*);                                                          \
  template void Gpt<T>::linear_backward(T*, float*, float*, const T*, const T*, const T*, int, int);        \
  template void Gpt<T>::attention_forward(T*, T*, const T*);                                                \
  template void Gpt<T>::attention_backward(T*, const T*, const T*, const T*);                               \
  template typename Gpt<T>::HeadLayout Gpt<T>::head_layout() const;
ISOFLOP_GPT_LAYER_MEMBERS(float)
ISOFLOP_GPT_LAYER_MEMBERS(bf16)
#undef ISOFLOP_GPT_LAYER_MEMBERS

}  // namespace isoflop::train::cuda
