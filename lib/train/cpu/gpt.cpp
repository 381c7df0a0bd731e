// The CPU reference GPT's forward and backward passes (GPT-2 architecture; llm.c's train_gpt2.c layout).
#include "train/cpu/gpt.hpp"

#include <algorithm>

#include "train/cpu/layers.hpp"

namespace isoflop::train::cpu {

template <typename T>
Gpt<T>::Gpt(const ModelConfig& config, int max_batch)
    : config_(config), layout_(parameter_layout(config)), max_batch_(max_batch) {
  params_.assign(layout_.total, T(0));
  grads_.assign(layout_.total, T(0));
  allocate(acts_);
  allocate(dacts_);
  inputs_.assign(static_cast<size_t>(max_batch) * config.seq, 0);
  targets_.assign(static_cast<size_t>(max_batch) * config.seq, 0);
}

template <typename T>
void Gpt<T>::allocate(Acts& a) const {
  const size_t L = config_.layers, C = config_.d_model, V = config_.vocab, NH = config_.heads;
  const size_t BT = static_cast<size_t>(max_batch_) * config_.seq, Tn = config_.seq;
  a.encoded.assign(BT * C, 0);
  a.ln1.assign(L * BT * C, 0);
  a.ln1_mean.assign(L * BT, 0);
  a.ln1_rstd.assign(L * BT, 0);
  a.qkv.assign(L * BT * 3 * C, 0);
  a.atty.assign(L * BT * C, 0);
  a.att.assign(L * max_batch_ * NH * Tn * Tn, 0);
  a.attproj.assign(L * BT * C, 0);
  a.residual2.assign(L * BT * C, 0);
  a.ln2.assign(L * BT * C, 0);
  a.ln2_mean.assign(L * BT, 0);
  a.ln2_rstd.assign(L * BT, 0);
  a.fch.assign(L * BT * 4 * C, 0);
  a.fch_gelu.assign(L * BT * 4 * C, 0);
  a.fcproj.assign(L * BT * C, 0);
  a.residual3.assign(L * BT * C, 0);
  a.lnf.assign(BT * C, 0);
  a.lnf_mean.assign(BT, 0);
  a.lnf_rstd.assign(BT, 0);
  a.logits.assign(BT * V, 0);
  a.losses.assign(BT, 0);
}

template <typename T>
double Gpt<T>::forward(const int32_t* inputs, const int32_t* targets, int B) {
  const int L = config_.layers, C = config_.d_model, V = config_.vocab, NH = config_.heads, Tn = config_.seq;
  const int BT = B * Tn;
  batch_ = B;
  std::copy(inputs, inputs + BT, inputs_.begin());
  std::copy(targets, targets + BT, targets_.begin());
  const auto p = bind_params(params_.data(), layout_);
  Acts& a = acts_;
  const long long btc = static_cast<long long>(BT) * C;
  const long long att_size = static_cast<long long>(B) * NH * Tn * Tn;

  encoder_forward(a.encoded.data(), inputs, p.wte, p.wpe, B, Tn, C);  // (B,T,C)
  for (int l = 0; l < L; ++l) {
    const T* residual = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * btc;
    T* ln1 = a.ln1.data() + l * btc;
    T* qkv = a.qkv.data() + l * btc * 3;
    T* atty = a.atty.data() + l * btc;
    T* att = a.att.data() + l * att_size;
    T* attproj = a.attproj.data() + l * btc;
    T* residual2 = a.residual2.data() + l * btc;
    T* ln2 = a.ln2.data() + l * btc;
    T* fch = a.fch.data() + l * btc * 4;
    T* fch_gelu = a.fch_gelu.data() + l * btc * 4;
    T* fcproj = a.fcproj.data() + l * btc;
    T* residual3 = a.residual3.data() + l * btc;
    const long long c = C, cc = static_cast<long long>(C) * C;
    layernorm_forward(ln1, a.ln1_mean.data() + l * BT, a.ln1_rstd.data() + l * BT, residual, p.ln1w + l * c,
                      p.ln1b + l * c, BT, C);
    matmul_forward(qkv, ln1, p.qkvw + l * 3 * cc, p.qkvb + l * 3 * c, BT, C, 3 * C);  // (B,T,3C)
    attention_forward(atty, att, qkv, B, Tn, C, NH);                                   // (B,T,C)
    matmul_forward(attproj, atty, p.attprojw + l * cc, p.attprojb + l * c, BT, C, C);
    residual_forward(residual2, residual, attproj, btc);
    layernorm_forward(ln2, a.ln2_mean.data() + l * BT, a.ln2_rstd.data() + l * BT, residual2, p.ln2w + l * c,
                      p.ln2b + l * c, BT, C);
    matmul_forward(fch, ln2, p.fcw + l * 4 * cc, p.fcb + l * 4 * c, BT, C, 4 * C);  // (B,T,4C)
    gelu_forward(fch_gelu, fch, btc * 4);
    matmul_forward(fcproj, fch_gelu, p.fcprojw + l * 4 * cc, p.fcprojb + l * c, BT, 4 * C, C);
    residual_forward(residual3, residual2, fcproj, btc);
  }
  const T* last = a.residual3.data() + (L - 1) * btc;
  layernorm_forward(a.lnf.data(), a.lnf_mean.data(), a.lnf_rstd.data(), last, p.lnfw, p.lnfb, BT, C);
  matmul_forward(a.logits.data(), a.lnf.data(), p.wte, static_cast<const T*>(nullptr), BT, C, V);  // (B,T,V), tied
  return crossentropy_forward(a.logits.data(), a.losses.data(), targets, BT, V);
}

template <typename T>
void Gpt<T>::backward() {
  const int L = config_.layers, C = config_.d_model, V = config_.vocab, NH = config_.heads, Tn = config_.seq;
  const int B = batch_, BT = B * Tn;
  const long long btc = static_cast<long long>(BT) * C;
  const long long att_size = static_cast<long long>(B) * NH * Tn * Tn;
  std::fill(grads_.begin(), grads_.end(), T(0));
  Acts& a = acts_;
  Acts& d = dacts_;
  // Only the activation gradients that are accumulated into need zeroing; the rest are written first.
  std::fill_n(d.lnf.begin(), btc, T(0));
  std::fill_n(d.residual3.begin(), L * btc, T(0));
  std::fill_n(d.residual2.begin(), L * btc, T(0));
  std::fill_n(d.encoded.begin(), btc, T(0));
  std::fill_n(d.ln1.begin(), L * btc, T(0));
  std::fill_n(d.ln2.begin(), L * btc, T(0));
  std::fill_n(d.qkv.begin(), L * btc * 3, T(0));
  std::fill_n(d.atty.begin(), L * btc, T(0));
  std::fill_n(d.fch.begin(), L * btc * 4, T(0));
  std::fill_n(d.fch_gelu.begin(), L * btc * 4, T(0));
  const auto p = bind_params(params_.data(), layout_);
  const auto g = bind_params(grads_.data(), layout_);

  // The mean over B·T positions: each position's loss gradient is scaled by 1/(B·T).
  crossentropy_backward(a.logits.data(), targets_.data(), BT, V, static_cast<T>(1.0 / BT));  // logits → dlogits
  matmul_backward(d.lnf.data(), g.wte, static_cast<T*>(nullptr), a.logits.data(), a.lnf.data(), p.wte, BT, C, V);
  T* dlast = d.residual3.data() + (L - 1) * btc;
  layernorm_backward(dlast, g.lnfw, g.lnfb, d.lnf.data(), a.residual3.data() + (L - 1) * btc, p.lnfw,
                     a.lnf_mean.data(), a.lnf_rstd.data(), BT, C);
  for (int l = L - 1; l >= 0; --l) {
    const long long c = C, cc = static_cast<long long>(C) * C;
    const T* residual = l == 0 ? a.encoded.data() : a.residual3.data() + (l - 1) * btc;
    T* dresidual = l == 0 ? d.encoded.data() : d.residual3.data() + (l - 1) * btc;
    T* dresidual3 = d.residual3.data() + l * btc;
    T* dresidual2 = d.residual2.data() + l * btc;
    // residual3 = residual2 + fcproj: dfcproj is dresidual3 itself.
    residual_forward(dresidual2, dresidual2, dresidual3, btc);
    matmul_backward(d.fch_gelu.data() + l * btc * 4, g.fcprojw + l * 4 * cc, g.fcprojb + l * c, dresidual3,
                    a.fch_gelu.data() + l * btc * 4, p.fcprojw + l * 4 * cc, BT, 4 * C, C);
    gelu_backward(d.fch.data() + l * btc * 4, a.fch.data() + l * btc * 4, d.fch_gelu.data() + l * btc * 4, btc * 4);
    matmul_backward(d.ln2.data() + l * btc, g.fcw + l * 4 * cc, g.fcb + l * 4 * c, d.fch.data() + l * btc * 4,
                    a.ln2.data() + l * btc, p.fcw + l * 4 * cc, BT, C, 4 * C);
    layernorm_backward(dresidual2, g.ln2w + l * c, g.ln2b + l * c, d.ln2.data() + l * btc, a.residual2.data() + l * btc,
                       p.ln2w + l * c, a.ln2_mean.data() + l * BT, a.ln2_rstd.data() + l * BT, BT, C);
    // residual2 = residual + attproj: dattproj is dresidual2; the residual branch gets dresidual2 too.
    residual_forward(dresidual, dresidual, dresidual2, btc);
    matmul_backward(d.atty.data() + l * btc, g.attprojw + l * cc, g.attprojb + l * c, dresidual2,
                    a.atty.data() + l * btc, p.attprojw + l * cc, BT, C, C);
    // The scores' gradient goes to this layer's slice of d.att: (B,NH,T,T), one block per head.
    attention_backward(d.qkv.data() + l * btc * 3, d.att.data() + l * att_size, d.atty.data() + l * btc, a.qkv.data() + l * btc * 3,
                       a.att.data() + l * att_size, B, Tn, C, NH);
    matmul_backward(d.ln1.data() + l * btc, g.qkvw + l * 3 * cc, g.qkvb + l * 3 * c, d.qkv.data() + l * btc * 3,
                    a.ln1.data() + l * btc, p.qkvw + l * 3 * cc, BT, C, 3 * C);
    layernorm_backward(dresidual, g.ln1w + l * c, g.ln1b + l * c, d.ln1.data() + l * btc, residual, p.ln1w + l * c,
                       a.ln1_mean.data() + l * BT, a.ln1_rstd.data() + l * BT, BT, C);
  }
  encoder_backward(g.wte, g.wpe, d.encoded.data(), inputs_.data(), B, Tn, C, V);
}

template <typename T>
size_t Gpt<T>::memory_bytes() const {
  auto acts = [](const Acts& a) {
    size_t n = 0;
    for (const auto* v : {&a.encoded, &a.ln1, &a.ln1_mean, &a.ln1_rstd, &a.qkv, &a.atty, &a.att, &a.attproj,
                          &a.residual2, &a.ln2, &a.ln2_mean, &a.ln2_rstd, &a.fch, &a.fch_gelu, &a.fcproj,
                          &a.residual3, &a.lnf, &a.lnf_mean, &a.lnf_rstd, &a.logits, &a.losses})
      n += v->size();
    return n;
  };
  return sizeof(T) * (params_.size() + grads_.size() + acts(acts_) + acts(dacts_));
}

template class Gpt<float>;
template class Gpt<double>;

}  // namespace isoflop::train::cpu
