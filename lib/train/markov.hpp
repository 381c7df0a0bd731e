// A synthetic language whose entropy rate is known exactly: a seeded random order-k Markov source over a
// vocabulary of V tokens. Each context's next-token row is sparse and Zipf-like (`branching` successors with
// weights ∝ 1/rank^zipf), mixed with a little uniform mass (`smoothing`) so the chain is irreducible and
// aperiodic and its stationary distribution unique. The entropy rate H = Σ_c π(c)·H(row_c) is the lowest loss
// any model can reach (training.md §4: draw data from a small explicit model so E_true is known).
#pragma once

#include <cstdint>
#include <vector>

namespace isoflop::train {

struct MarkovOptions {
  int vocab = 64;           // V tokens
  int order = 1;            // k: the next token depends on the previous k
  int branching = 8;        // successors with Zipf weight per context (≤ V)
  double zipf = 1.0;        // Zipf exponent s of the weights 1/rank^s
  double smoothing = 0.01;  // probability mass spread uniformly over all V tokens, in [0, 1)
  uint64_t seed = 1;

  // Throws InputError naming "data.order" etc.; V^k is limited to 2^22 contexts.
  void validate() const;
  bool operator==(const MarkovOptions&) const = default;
};

class MarkovSource {
 public:
  explicit MarkovSource(const MarkovOptions& options);

  const MarkovOptions& options() const { return options_; }
  long long contexts() const { return contexts_; }

  // P(next = y | context c); contexts are base-V numbers of the last k tokens, the most recent last.
  double probability(long long context, int y) const;

  // Entropy rate in nats per token under the stationary distribution (power iteration to 1e-14).
  double entropy_rate() const { return entropy_rate_; }

  // n tokens from the chain, starting from k uniformly drawn tokens; deterministic in `seed`.
  std::vector<int32_t> sample(long long n, uint64_t seed) const;

  // Mean −log P(targets[i] | the k tokens before it) over positions i ≥ k of `tokens`: the true source's own
  // cross-entropy on a sample (the floor a perfect model would score on exactly these tokens).
  double cross_entropy(const std::vector<int32_t>& tokens) const;

 private:
  long long next_context(long long context, int y) const { return (context * options_.vocab + y) % contexts_; }

  MarkovOptions options_;
  long long contexts_ = 0;
  std::vector<int32_t> successors_;  // (contexts, branching)
  std::vector<double> weights_;      // (contexts, branching), normalised Zipf weights
  double entropy_rate_ = 0;
};

}  // namespace isoflop::train
