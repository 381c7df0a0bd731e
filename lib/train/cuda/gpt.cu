// The CUDA GPT's buffers, forward pass, backward pass and optimiser step: the same straight list of layer
// calls as cpu::Gpt (lib/train/cpu/gpt.cpp), with cuBLASLt GEMMs and the kernels of kernels.cuh.
#include "train/cuda/gpt.cuh"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "core/error.hpp"
#include "train/cuda/kernels.cuh"
#include "train/cuda/reduce.cuh"

namespace isoflop::train::cuda {

template <typename T>
Gpt<T>::Gpt(const ModelConfig& config, int batch) : config_(config), layout_(parameter_layout(config)), batch_(batch) {
  config_.validate();
  if (batch < 1) throw InputError("train.batch: must be at least 1 (got " + std::to_string(batch) + ")");
  const size_t L = config.layers, C = config.d_model, V = config.vocab, NH = config.heads, Tn = config.seq;
  const size_t BT = static_cast<size_t>(batch) * Tn, P = layout_.total;
  const size_t att = static_cast<size_t>(batch) * NH * Tn * Tn;
  cudaStream_t s = stream_.get();
  gemm_ = std::make_unique<Gemm>(memory_);

  params_ = memory_.allocate<float>(P, "the fp32 parameters");
  if constexpr (std::is_same_v<T, float>)
    params_t_ = params_;
  else
    params_t_ = memory_.allocate<T>(P, "the bf16 parameter copy");
  grads_ = memory_.allocate<float>(P, "the gradients");
  m_ = memory_.allocate<float>(P, "the AdamW first moments");
  v_ = memory_.allocate<float>(P, "the AdamW second moments");

  Acts& a = acts_;
  a.encoded = memory_.allocate<T>(BT * C, "the embeddings");
  a.ln1 = memory_.allocate<T>(L * BT * C, "ln1");
  a.ln1_mean = memory_.allocate<float>(L * BT, "ln1 means");
  a.ln1_rstd = memory_.allocate<float>(L * BT, "ln1 rstd");
  a.qkv = memory_.allocate<T>(L * BT * 3 * C, "qkv");
  a.atty = memory_.allocate<T>(L * BT * C, "the attention outputs");
  a.att = memory_.allocate<T>(L * att, "the attention probabilities");
  a.residual2 = memory_.allocate<T>(L * BT * C, "residual2");
  a.ln2 = memory_.allocate<T>(L * BT * C, "ln2");
  a.ln2_mean = memory_.allocate<float>(L * BT, "ln2 means");
  a.ln2_rstd = memory_.allocate<float>(L * BT, "ln2 rstd");
  a.fch = memory_.allocate<T>(L * BT * 4 * C, "the MLP pre-activations");
  a.fch_gelu = memory_.allocate<T>(L * BT * 4 * C, "the MLP activations");
  a.residual3 = memory_.allocate<T>(L * BT * C, "residual3");
  a.lnf = memory_.allocate<T>(BT * C, "lnf");
  a.lnf_mean = memory_.allocate<float>(BT, "lnf means");
  a.lnf_rstd = memory_.allocate<float>(BT, "lnf rstd");
  a.logits = memory_.allocate<float>(BT * V, "the logits");
  if constexpr (std::is_same_v<T, float>)
    a.dlogits = a.logits;  // the classifier rewrites the logits into their gradient in place
  else
    a.dlogits = memory_.allocate<T>(BT * V, "the logit gradients");
  a.losses = memory_.allocate<float>(BT, "the losses");

  Scratch& x = scratch_;
  x.qkvr = memory_.allocate<T>(3 * BT * C, "q, k, v by head");
  x.dqkvr = memory_.allocate<T>(3 * BT * C, "dq, dk, dv by head");
  x.preatt = memory_.allocate<float>(att, "the attention scores");
  x.dpreatt = memory_.allocate<T>(att, "the attention score gradients");
  x.y = memory_.allocate<T>(BT * C, "the attention output by head");
  x.dres = memory_.allocate<T>(BT * C, "the residual gradient");
  x.dc = memory_.allocate<T>(BT * C, "a (B,T,C) gradient");
  x.d3c = memory_.allocate<T>(BT * 3 * C, "a (B,T,3C) gradient");
  x.d4c = memory_.allocate<T>(BT * 4 * C, "a (B,T,4C) gradient");
  x.columns = memory_.allocate<float>(column_scratch_floats(2, static_cast<int>(4 * C)), "column-sum partials");
  x.norm_partial = memory_.allocate<double>(kNormBlocks, "norm partials");
  x.norm = memory_.allocate<double>(1, "the norm");
  x.inputs = memory_.allocate<int32_t>(BT, "the inputs");
  x.targets = memory_.allocate<int32_t>(BT, "the targets");
  x.buckets = memory_.allocate<int32_t>(3 * BT + 1, "the token buckets");

  check_cuda(cudaMemsetAsync(params_, 0, P * sizeof(float), s), "cudaMemsetAsync(parameters)");
  check_cuda(cudaMemsetAsync(grads_, 0, P * sizeof(float), s), "cudaMemsetAsync(gradients)");
  check_cuda(cudaMemsetAsync(m_, 0, P * sizeof(float), s), "cudaMemsetAsync(m)");
  check_cuda(cudaMemsetAsync(v_, 0, P * sizeof(float), s), "cudaMemsetAsync(v)");
  host_buckets_.assign(3 * BT + 1, 0);
  host_cursor_.assign(V, 0);
  host_losses_.assign(BT, 0.0f);
  sync("initialising the CUDA backend");
}

template <typename T>
Gpt<T>::~Gpt() {
  // Work may still be queued (backward and update do not wait): let it finish before the cuBLASLt handle and
  // the buffers it uses go. Errors cannot be reported from a destructor.
  cudaStreamSynchronize(stream_.get());
}

template <typename T>
void Gpt<T>::sync(const char* what) const {
  check_cuda(cudaStreamSynchronize(stream_.get()), what);
}

template <typename T>
void Gpt<T>::copy_all(float* dst, const float* src, cudaMemcpyKind kind, const char* what) const {
  check_cuda(cudaMemcpyAsync(dst, src, layout_.total * sizeof(float), kind, stream_.get()), what);
}

template <typename T>
void Gpt<T>::set_parameters(const float* host) {
  copy_all(params_, host, cudaMemcpyHostToDevice, "copying parameters to the device");
  params_t_stale_ = true;
  sync("copying parameters to the device");
}

template <typename T>
void Gpt<T>::get_parameters(float* host) const {
  copy_all(host, params_, cudaMemcpyDeviceToHost, "copying parameters from the device");
  sync("copying parameters from the device");
}

template <typename T>
void Gpt<T>::set_optimizer_state(const float* m, const float* v) {
  copy_all(m_, m, cudaMemcpyHostToDevice, "copying AdamW m to the device");
  copy_all(v_, v, cudaMemcpyHostToDevice, "copying AdamW v to the device");
  sync("copying the optimizer state to the device");
}

template <typename T>
void Gpt<T>::get_optimizer_state(float* m, float* v) const {
  copy_all(m, m_, cudaMemcpyDeviceToHost, "copying AdamW m from the device");
  copy_all(v, v_, cudaMemcpyDeviceToHost, "copying AdamW v from the device");
  sync("copying the optimizer state from the device");
}

template <typename T>
void Gpt<T>::get_gradients(float* host) const {
  copy_all(host, grads_, cudaMemcpyDeviceToHost, "copying gradients from the device");
  sync("copying gradients from the device");
}

template <typename T>
typename Gpt<T>::Sizes Gpt<T>::sizes() const {
  Sizes z;
  z.L = config_.layers;
  z.C = config_.d_model;
  z.V = config_.vocab;
  z.Tn = config_.seq;
  z.B = batch_;
  z.BT = z.B * z.Tn;
  z.btc = static_cast<size_t>(z.BT) * z.C;
  z.bt = z.BT;
  z.att = static_cast<size_t>(z.B) * config_.heads * z.Tn * z.Tn;
  z.c = z.C;
  z.cc = static_cast<size_t>(z.C) * z.C;
  return z;
}

template <typename T>
void Gpt<T>::upload_batch(const int32_t* inputs, const int32_t* targets, bool buckets) {
  const int BT = batch_ * config_.seq, V = config_.vocab;
  // An out-of-range id would read outside the embedding table or the logits: refuse it here.
  for (int i = 0; i < BT; ++i) {
    if (inputs[i] < 0 || inputs[i] >= V)
      throw InputError("inputs: token id " + std::to_string(inputs[i]) + " at position " + std::to_string(i) +
                       " is outside the vocabulary [0, " + std::to_string(V) + ")");
    if (targets[i] < 0 || targets[i] >= V)
      throw InputError("targets: token id " + std::to_string(targets[i]) + " at position " + std::to_string(i) +
                       " is outside the vocabulary [0, " + std::to_string(V) + ")");
  }
  // The previous step's kernels may still read these buffers (and the host bucket staging): drain first.
  sync("finishing the previous step");
  cudaStream_t s = stream_.get();
  check_cuda(cudaMemcpyAsync(scratch_.inputs, inputs, BT * sizeof(int32_t), cudaMemcpyHostToDevice, s),
             "copying inputs to the device");
  check_cuda(cudaMemcpyAsync(scratch_.targets, targets, BT * sizeof(int32_t), cudaMemcpyHostToDevice, s),
             "copying targets to the device");
  if (!buckets) return;
  // Counting sort of the positions by token (ascending positions within a token): the embedding backward
  // then gives each token's row to one block and sums in a fixed order, with no atomics.
  int32_t* tokens = host_buckets_.data();
  int32_t* offsets = tokens + BT;
  int32_t* positions = offsets + BT + 1;
  std::fill(host_cursor_.begin(), host_cursor_.end(), 0);
  for (int i = 0; i < BT; ++i) ++host_cursor_[inputs[i]];
  int distinct = 0, running = 0;
  for (int v = 0; v < V; ++v) {
    const int count = host_cursor_[v];
    if (count == 0) continue;
    tokens[distinct] = v;
    offsets[distinct] = running;
    host_cursor_[v] = running;
    running += count;
    ++distinct;
  }
  offsets[distinct] = running;
  for (int i = 0; i < BT; ++i) positions[host_cursor_[inputs[i]]++] = i;
  buckets_ = distinct;
  check_cuda(cudaMemcpyAsync(scratch_.buckets, host_buckets_.data(), host_buckets_.size() * sizeof(int32_t),
                             cudaMemcpyHostToDevice, s),
             "copying the token buckets to the device");
}

template <typename T>
double Gpt<T>::forward(bool with_dlogits) {
  const auto [L, C, V, Tn, B, BT, btc, bt, att_size, c, cc] = sizes();
  cudaStream_t s = stream_.get();
  if (params_t_stale_) {
    if constexpr (!std::is_same_v<T, float>) convert_parameters(params_t_, params_, layout_.total, s);
    params_t_stale_ = false;
  }
  const auto p = bind_params(params_t_, layout_);
  Acts& a = acts_;

  encoder_forward(a.encoded, scratch_.inputs, p.wte, p.wpe, B, Tn, C, s);  // (B,T,C)
  for (int l = 0; l < L; ++l) {
    const T* residual = l == 0 ? a.encoded : a.residual3 + (l - 1) * btc;
    layernorm_forward(a.ln1 + l * btc, a.ln1_mean + l * bt, a.ln1_rstd + l * bt, residual, p.ln1w + l * c,
                      p.ln1b + l * c, BT, C, s);
    linear_forward(a.qkv + l * btc * 3, a.ln1 + l * btc, p.qkvw + l * 3 * cc, p.qkvb + l * 3 * c, C, 3 * C, nullptr);
    attention_forward(a.atty + l * btc, a.att + l * att_size, a.qkv + l * btc * 3);
    // residual2 = residual + atty · Wᵀ + b: the residual add rides in the GEMM (beta = 1).
    linear_forward(a.residual2 + l * btc, a.atty + l * btc, p.attprojw + l * cc, p.attprojb + l * c, C, C, residual);
    layernorm_forward(a.ln2 + l * btc, a.ln2_mean + l * bt, a.ln2_rstd + l * bt, a.residual2 + l * btc,
                      p.ln2w + l * c, p.ln2b + l * c, BT, C, s);
    linear_forward(a.fch + l * btc * 4, a.ln2 + l * btc, p.fcw + l * 4 * cc, p.fcb + l * 4 * c, C, 4 * C, nullptr);
    gelu_forward(a.fch_gelu + l * btc * 4, a.fch + l * btc * 4, static_cast<long long>(btc) * 4, s);
    linear_forward(a.residual3 + l * btc, a.fch_gelu + l * btc * 4, p.fcprojw + l * 4 * cc, p.fcprojb + l * c, 4 * C,
                   C, a.residual2 + l * btc);
  }
  layernorm_forward(a.lnf, a.lnf_mean, a.lnf_rstd, a.residual3 + (L - 1) * btc, p.lnfw, p.lnfb, BT, C, s);
  // logits (BT,V) = lnf (BT,C) · wteᵀ, fp32 (tied LM head)
  linear_forward(a.logits, CUDA_R_32F, a.lnf, p.wte, nullptr, C, V, nullptr);
  // The mean over B·T positions: each position's loss gradient is scaled by 1/(B·T), as on the CPU.
  crossentropy_forward_backward(a.losses, with_dlogits ? a.dlogits : static_cast<T*>(nullptr), a.logits,
                                scratch_.targets, BT, V, static_cast<float>(1.0 / BT), s);
  check_cuda(cudaMemcpyAsync(host_losses_.data(), a.losses, bt * sizeof(float), cudaMemcpyDeviceToHost, s),
             "copying the losses from the device");
  sync("the forward pass");
  double total = 0;
  for (float x : host_losses_) total += x;  // in position order, in double, as the CPU reference
  return total / BT;
}

template <typename T>
void Gpt<T>::backward() {
  const auto [L, C, V, Tn, B, BT, btc, bt, att_size, c, cc] = sizes();
  cudaStream_t s = stream_.get();
  const auto p = bind_params(static_cast<const T*>(params_t_), layout_);
  const auto g = bind_params(grads_, layout_);
  const Acts& a = acts_;
  Scratch& x = scratch_;
  check_cuda(cudaMemsetAsync(grads_, 0, layout_.total * sizeof(float), s), "cudaMemsetAsync(gradients)");
  check_cuda(cudaMemsetAsync(x.dres, 0, btc * sizeof(T), s), "cudaMemsetAsync(residual gradient)");

  // LM head (tied): dlnf (BT,C) = dlogits · wte; dwte += dlogitsᵀ · lnf. dlogits came with the forward pass.
  linear_backward(x.dc, g.wte, nullptr, a.dlogits, a.lnf, p.wte, C, V);
  layernorm_backward(x.dres, g.lnfw, g.lnfb, x.columns, x.dc, a.residual3 + (L - 1) * btc, p.lnfw, a.lnf_mean,
                     a.lnf_rstd, BT, C, s);

  for (int l = L - 1; l >= 0; --l) {
    const T* residual = l == 0 ? a.encoded : a.residual3 + (l - 1) * btc;
    // x.dres holds d(residual3): residual3 = residual2 + fcproj, so it is also fcproj's output gradient and
    // the first part of d(residual2).
    linear_backward(x.d4c, g.fcprojw + l * 4 * cc, g.fcprojb + l * c, x.dres, a.fch_gelu + l * btc * 4,
                    p.fcprojw + l * 4 * cc, 4 * C, C);
    gelu_backward(x.d4c, a.fch + l * btc * 4, x.d4c, static_cast<long long>(btc) * 4, s);
    linear_backward(x.dc, g.fcw + l * 4 * cc, g.fcb + l * 4 * c, x.d4c, a.ln2 + l * btc, p.fcw + l * 4 * cc, C, 4 * C);
    layernorm_backward(x.dres, g.ln2w + l * c, g.ln2b + l * c, x.columns, x.dc, a.residual2 + l * btc, p.ln2w + l * c,
                       a.ln2_mean + l * bt, a.ln2_rstd + l * bt, BT, C, s);
    // x.dres now holds d(residual2): residual2 = residual + attproj, the same argument once more.
    linear_backward(x.dc, g.attprojw + l * cc, g.attprojb + l * c, x.dres, a.atty + l * btc, p.attprojw + l * cc, C,
                    C);
    attention_backward(x.d3c, x.dc, a.qkv + l * btc * 3, a.att + l * att_size);
    linear_backward(x.dc, g.qkvw + l * 3 * cc, g.qkvb + l * 3 * c, x.d3c, a.ln1 + l * btc, p.qkvw + l * 3 * cc, C,
                    3 * C);
    layernorm_backward(x.dres, g.ln1w + l * c, g.ln1b + l * c, x.columns, x.dc, residual, p.ln1w + l * c,
                       a.ln1_mean + l * bt, a.ln1_rstd + l * bt, BT, C, s);
  }
  encoder_backward(g.wte, g.wpe, x.dres, x.buckets, x.buckets + BT, x.buckets + 2 * static_cast<size_t>(BT) + 1,
                   buckets_, B, Tn, C, s);
}

template <typename T>
double Gpt<T>::forward_backward(const int32_t* inputs, const int32_t* targets) {
  upload_batch(inputs, targets, true);
  const double loss = forward(true);
  backward();
  return loss;
}

template <typename T>
double Gpt<T>::evaluate(const int32_t* inputs, const int32_t* targets) {
  upload_batch(inputs, targets, false);
  return forward(false);
}

template <typename T>
double Gpt<T>::grad_norm() {
  double total = 0;
  sum_squares(scratch_.norm, scratch_.norm_partial, grads_, layout_.total, stream_.get());
  check_cuda(cudaMemcpyAsync(&total, scratch_.norm, sizeof(double), cudaMemcpyDeviceToHost, stream_.get()),
             "copying the gradient norm from the device");
  sync("the gradient norm");
  return std::sqrt(total);
}

template <typename T>
void Gpt<T>::update(const AdamWStep& step) {
  // The host's constants, computed exactly as adamw_update_host computes them.
  const double c1 = 1.0 - std::pow(step.beta1, static_cast<double>(step.t));
  const double c2 = 1.0 - std::pow(step.beta2, static_cast<double>(step.t));
  for (int i = 0; i < kParamCount; ++i) {
    const size_t begin = layout_.offsets[i];
    AdamWScalars s{};
    s.lr = static_cast<float>(step.lr);
    s.beta1 = static_cast<float>(step.beta1);
    s.beta2 = static_cast<float>(step.beta2);
    s.eps = static_cast<float>(step.eps);
    s.weight_decay = ParameterLayout::decayed(static_cast<Param>(i)) ? static_cast<float>(step.weight_decay) : 0.0f;
    s.grad_scale = static_cast<float>(step.grad_scale);
    s.inv_c1 = static_cast<float>(1.0 / c1);
    s.inv_c2 = static_cast<float>(1.0 / c2);
    adamw_update(params_ + begin, m_ + begin, v_ + begin, grads_ + begin, layout_.sizes[i], s, stream_.get());
  }
  params_t_stale_ = true;
}

template class Gpt<float>;
template class Gpt<bf16>;

}  // namespace isoflop::train::cuda
