// The CUDA GPT: the same model, parameter layout, loss and optimiser as the CPU reference (cpu::Gpt and
// adamw_update_host), with activations in T (float for parity, bf16 for training) and everything the
// optimiser touches in fp32: master parameters, gradients, AdamW moments. In bf16 mode the GEMMs read a bf16
// copy of the master parameters made before each forward pass after they changed.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "train/backend.hpp"
#include "train/config.hpp"
#include "train/cuda/device_memory.cuh"
#include "train/cuda/dtype.cuh"
#include "train/cuda/gemm.cuh"
#include "train/layout.hpp"

namespace isoflop::train::cuda {

// The backend's stream on device 0; destruction waits for queued work, so buffers are freed after their last use.
class Stream {
 public:
  Stream() {
    check_cuda(cudaSetDevice(0), "cudaSetDevice(0)");
    check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream() {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

template <typename T>
class Gpt {
 public:
  // Allocates every device buffer for batches of exactly `batch` sequences.
  Gpt(const ModelConfig& config, int batch);
  Gpt(const Gpt&) = delete;
  Gpt& operator=(const Gpt&) = delete;
  ~Gpt();

  const ParameterLayout& layout() const { return layout_; }

  void set_parameters(const float* host);
  void get_parameters(float* host) const;
  void set_optimizer_state(const float* m, const float* v);
  void get_optimizer_state(float* m, float* v) const;

  // Mean loss (nats) of one (batch, seq) batch; forward_backward leaves the gradients on the device.
  double forward_backward(const int32_t* inputs, const int32_t* targets);
  double evaluate(const int32_t* inputs, const int32_t* targets);
  double grad_norm();
  void get_gradients(float* host) const;
  void update(const AdamWStep& step);

  size_t memory_bytes() const { return memory_.bytes(); }

 private:
  // Per-layer activations, each (L, …) in one buffer.
  struct Acts {
    T* encoded;                 // (B,T,C)
    T* ln1;                     // (L,B,T,C)
    float* ln1_mean;            // (L,B,T)
    float* ln1_rstd;            // (L,B,T)
    T* qkv;                     // (L,B,T,3C)
    T* atty;                    // (L,B,T,C)
    T* att;                     // (L,B,NH,T,T) softmax probabilities
    T* residual2;               // (L,B,T,C)
    T* ln2;                     // (L,B,T,C)
    float* ln2_mean;            // (L,B,T)
    float* ln2_rstd;            // (L,B,T)
    T* fch;                     // (L,B,T,4C)
    T* fch_gelu;                // (L,B,T,4C)
    T* residual3;               // (L,B,T,C)
    T* lnf;                     // (B,T,C)
    float* lnf_mean;            // (B,T)
    float* lnf_rstd;            // (B,T)
    float* logits;              // (B,T,V) fp32 in both precisions
    T* dlogits;                 // (B,T,V); the logits buffer itself when T is float
    float* losses;              // (B,T)
  };
  // Scratch reused by every layer.
  struct Scratch {
    T* qkvr;         // (3,B,NH,T,hs) q, k, v split by head
    T* dqkvr;        // (3,B,NH,T,hs) their gradients
    float* preatt;   // (B,NH,T,T) scaled scores; in backward the probabilities' gradient
    T* dpreatt;      // (B,NH,T,T) the scores' gradient
    T* y;            // (B,NH,T,hs) attention output by head; in backward its gradient
    T* dres;         // (B,T,C) gradient of the residual stream
    T* dc;           // (B,T,C)
    T* d3c;          // (B,T,3C)
    T* d4c;          // (B,T,4C)
    float* columns;  // column-sum partials
    double* norm_partial;
    double* norm;
    int32_t* inputs;   // (B,T)
    int32_t* targets;  // (B,T)
    int32_t* buckets;  // token buckets for the embedding backward: tokens (BT), offsets (BT+1), positions (BT)
  };

  // The sizes forward and backward index the activations with.
  struct Sizes {
    int L, C, V, Tn, B, BT;
    size_t btc, bt, att, c, cc;  // B·T·C, B·T, one layer's attention probabilities (B·NH·T·T), C, C·C
  };
  // The head layout both attention passes use: sizes, the scores' 1/√hs scale, and q, k, v split by head
  // into scratch_.qkvr.
  struct HeadLayout {
    int B, Tn, NH, hs, heads;  // heads = B·NH matrices per batched GEMM
    size_t plane;              // elements of one of q, k, v: (B,NH,T,hs)
    float scale;
    T *q, *k, *v;
  };

  Sizes sizes() const;
  HeadLayout head_layout() const;
  void upload_batch(const int32_t* inputs, const int32_t* targets, bool buckets);
  double forward(bool with_dlogits);
  void backward();
  // out (BT,OC) = inp (BT,C) · wᵀ [+ residual] + bias; out and residual of out_type (T, or fp32 for the logits).
  void linear_forward(void* out, cudaDataType_t out_type, const T* inp, const T* w, const T* bias, int C, int OC,
                      const void* residual);
  void linear_forward(T* out, const T* inp, const T* w, const T* bias, int C, int OC, const T* residual) {
    linear_forward(out, DType<T>::kCuda, inp, w, bias, C, OC, residual);
  }
  void linear_backward(T* dinp, float* dw, float* dbias, const T* dout, const T* inp, const T* w, int C, int OC);
  void attention_forward(T* atty, T* att, const T* qkv);
  void attention_backward(T* dqkv, const T* datty, const T* qkv, const T* att);
  void sync(const char* what) const;
  // Enqueues a copy of one parameter-sized fp32 buffer (layout_.total floats) between host and device.
  void copy_all(float* dst, const float* src, cudaMemcpyKind kind, const char* what) const;

  ModelConfig config_;
  ParameterLayout layout_;
  int batch_;
  // Declaration order is destruction order reversed: the GEMM plans go first, then the stream, then the memory
  // (~Gpt drains the stream before any of them).
  DeviceMemory memory_;
  Stream stream_;
  std::unique_ptr<Gemm> gemm_;
  float* params_ = nullptr;      // fp32 master parameters
  T* params_t_ = nullptr;        // the GEMMs' copy (params_ itself when T is float)
  float* grads_ = nullptr;
  float* m_ = nullptr;
  float* v_ = nullptr;
  bool params_t_stale_ = true;
  Acts acts_{};
  Scratch scratch_{};
  int buckets_ = 0;               // distinct tokens of the current batch
  std::vector<int32_t> host_buckets_;   // same layout as scratch_.buckets
  std::vector<int32_t> host_cursor_;    // (V) counting-sort cursor
  std::vector<float> host_losses_;      // (B,T)
};

extern template class Gpt<float>;
extern template class Gpt<bf16>;

}  // namespace isoflop::train::cuda
