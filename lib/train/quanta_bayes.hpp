// The Bayes-optimal predictor of the quanta source given only a window of context, as a model sees it: the exact
// posterior predictive over skills. The separator is observed, so the forward algorithm over (skill, segment)
// collapses to the run of body tokens since the last separator (or since the window began): with run
// x_1..x_r and skill posterior π_k ∝ p_k [x_1 ∈ A_k] Π_t T_k(x_{t+1} | x_t) (the first token, uniform on the
// skill's alphabet A_k of m tokens, tells only which alphabets hold it; with the whole body as every alphabet,
// nothing),
//   P(separator) = h,   P(y) = (1 − h) Σ_k π_k T_k(y | x_r)   for a body token y,
// and after a separator the next token is y with probability Σ_{k: y ∈ A_k} p_k / m. The sparse rows cut the posterior's support
// by about branching/(V−1) per token, so it is kept as a list of surviving skills, filtered by merging it with the
// sorted list of skills that allow each transition (x, y): sequential reads, no pass over all K skills.
#pragma once

#include <cstdint>
#include <vector>

#include "train/quanta.hpp"

namespace isoflop::train {

struct FloorEstimate {
  double loss = 0;    // mean −log P(target | window prefix), nats per token
  double standard_error = 0;  // standard error of that mean as an estimate of the source's expected floor
  long long windows = 0;
};

class QuantaPredictor {
 public:
  explicit QuantaPredictor(const QuantaSource& source);

  // The floor on `windows` windows of seq + 1 tokens read with stride seq from tokens[0] (as the trainer's
  // batches read them: inputs w[0..seq), targets w[1..seq]); each target is predicted from its window's prefix.
  // The standard error is that of the mean of per-window means (windows are nearly independent: the
  // predictor forgets at each window's start). Needs tokens.size() ≥ windows·seq + 1 tokens of the source.
  FloorEstimate floor(const std::vector<int32_t>& tokens, int seq, long long windows);

  // Sum of −log P over the seq targets of one window w[0..seq].
  double window_nats(const int32_t* w, int seq);

  // P(y | x) under the prior mixture over the skills whose alphabet holds x, Σ_k p_k T_k(y | x) / Σ_{k ∋ x} p_k:
  // the predictive after one body token.
  double mixture(int x, int y) const {
    return mixture_[static_cast<size_t>(x - 1) * body_ + (y - 1)] / first_mass_[x - 1];
  }

 private:
  const QuantaSource& source_;
  int body_ = 0;
  std::vector<double> mixture_;        // (V−1, V−1): Σ_k p_k T_k(y | x)
  std::vector<double> first_mass_;     // (V−1): Σ_k p_k over the skills whose alphabet holds x
  std::vector<int64_t> pair_offsets_;  // CSR over transitions (x, y): skills with T_k(y | x) > 0
  std::vector<int32_t> pair_skills_;   // ascending within each transition
  std::vector<float> pair_probs_;      // T_k(y | x) beside each
  std::vector<int32_t> alive_;         // the posterior's support (preallocated to K)
  std::vector<double> posterior_;      // its weights, summing to 1
};

}  // namespace isoflop::train
