// The CPU reference GPT: parameters, gradients and activations each one contiguous buffer, a forward that is a
// straight list of layer calls, and the matching backward. Templated on the scalar so the same code runs in
// float (training) and double (gradient checks).
#pragma once

#include <cstdint>
#include <vector>

#include "train/config.hpp"
#include "train/layout.hpp"

namespace isoflop::train::cpu {

template <typename T>
class Gpt {
 public:
  // Allocates every buffer for batches of up to `max_batch` sequences of config.seq tokens.
  Gpt(const ModelConfig& config, int max_batch);

  const ModelConfig& config() const { return config_; }
  const ParameterLayout& layout() const { return layout_; }
  int max_batch() const { return max_batch_; }

  std::vector<T>& params() { return params_; }
  const std::vector<T>& params() const { return params_; }
  std::vector<T>& grads() { return grads_; }
  const std::vector<T>& grads() const { return grads_; }

  // Forward pass over `batch` sequences (inputs, targets: (batch, seq) token ids); returns the mean
  // cross-entropy in nats. Keeps the activations for backward().
  double forward(const int32_t* inputs, const int32_t* targets, int batch);

  // Gradients of the last forward()'s mean loss, written into grads() (overwritten, not accumulated).
  void backward();

  // Bytes held by parameters, gradients and activations.
  size_t memory_bytes() const;

 private:
  struct Acts {
    std::vector<T> encoded, ln1, ln1_mean, ln1_rstd, qkv, atty, att, attproj, residual2, ln2, ln2_mean, ln2_rstd, fch,
        fch_gelu, fcproj, residual3, lnf, lnf_mean, lnf_rstd, logits, losses;
  };
  void allocate(Acts& a) const;

  ModelConfig config_;
  ParameterLayout layout_;
  int max_batch_;
  int batch_ = 0;  // batch of the last forward
  std::vector<T> params_, grads_;
  Acts acts_, dacts_;
  std::vector<int32_t> inputs_, targets_;
};

extern template class Gpt<float>;
extern template class Gpt<double>;

}  // namespace isoflop::train::cpu
