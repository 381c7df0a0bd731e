// A synthetic language with a power-law learning curve and a known floor, after the quantization model of neural
// scaling (Michaud et al. 2023): K "skills" used with Zipf frequencies p_i ∝ i^−(1+α), so a model that stores
// the n most frequent skills is left with a loss excess ∝ Σ_{i>n} p_i ∝ n^−α, and D tokens show skill i about
// D·p_i times (training.md §4: draw data from a small explicit model whose optimal predictor is cheap).
//
// The stream is a sequence of segments: the separator token 0, then L ≥ 1 body tokens over 1..V−1 produced by
// one skill drawn from the Zipf law. L is geometric: after each body token the segment ends with probability
// h = 1/segment, so the position in a segment tells nothing (no hidden clock). Skill k is an order-1 chain
// T_k(y | x) = Σ_r w_r [y = σ_{k,r}(x)]: `branching` random permutations σ_{k,r} of the body alphabet with Zipf
// weights w_r ∝ 1/r^zipf. A mixture of permutations is doubly stochastic, so every skill's stationary
// distribution is uniform; the first body token is drawn uniformly, every body token is uniform given the skill,
// and the skill of any body position is Zipf-distributed whatever came before the window a model sees.
// With `alphabet` m < V−1 each skill draws its own m body tokens and its permutations are of those: a segment's
// tokens then say which skills could have made it (a bag of tokens narrows the skill, as a topic's words do),
// and every body token is uniform on the skill's alphabet, so the same exact predictor holds.
// That is what makes the Bayes-optimal predictor exact and cheap (quanta_bayes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace isoflop::train {

struct QuantaOptions {
  int vocab = 64;         // V: token 0 separates segments, 1..V−1 are the body alphabet
  int skills = 16384;     // K skills
  double alpha = 0.5;     // skill i (1-based) is used with probability ∝ i^−(1+alpha); a design parameter
  int branching = 4;      // successors of a token within a skill (permutations mixed)
  double zipf = 1.0;      // successor weights ∝ 1/rank^zipf
  double segment = 32;    // mean body tokens per segment (1/h)
  int alphabet = 0;       // m: body tokens each skill uses, a random subset of 1..V−1 per skill; 0: all V−1
  uint64_t seed = 1;      // which skills

  // Throws InputError naming "data.skills" etc.
  void validate() const;
  bool operator==(const QuantaOptions&) const = default;
};

class QuantaSource {
 public:
  // The skills drawn from options.seed.
  explicit QuantaSource(const QuantaOptions& options);
  // Given skills: successors is (skills, V−1, branching), entry [k][x−1][r] = σ_{k,r}(x) in 1..V−1, each
  // (k, r) column a permutation. Throws InputError otherwise.
  QuantaSource(const QuantaOptions& options, std::vector<uint16_t> successors);

  const QuantaOptions& options() const { return options_; }
  int body() const { return options_.vocab - 1; }
  // m: the body tokens of one skill's alphabet.
  int alphabet() const { return options_.alphabet > 0 ? options_.alphabet : body(); }
  // Whether body token x is in skill k's alphabet.
  bool uses(int k, int x) const { return member_[static_cast<size_t>(k) * body() + (x - 1)] != 0; }
  double hazard() const { return hazard_; }
  int branching() const { return options_.branching; }
  double skill_probability(int k) const { return skill_p_[k]; }
  double weight(int r) const { return weights_[r]; }
  // σ_{k,r}(x) for body token x.
  int successor(int k, int x, int r) const {
    return successors_[(static_cast<size_t>(k) * body() + (x - 1)) * options_.branching + r];
  }
  // T_k(y | x) for body tokens x, y (equal successors of different ranks add up).
  double transition(int k, int x, int y) const {
    double p = 0;
    for (int r = 0; r < options_.branching; ++r)
      if (successor(k, x, r) == y) p += weights_[r];
    return p;
  }
  // The entropy rate of skill k's chain in nats: the mean row entropy under its uniform stationary law.
  double skill_entropy(int k) const;

  // n tokens of the stream, beginning with a separator; deterministic in `seed`.
  std::vector<int32_t> sample(long long n, uint64_t seed) const;

 private:
  void init_laws();
  // Takes each skill's alphabet ((skills, m) tokens) and marks its members.
  void set_alphabets(const std::vector<uint16_t>& letters);

  QuantaOptions options_;
  double hazard_ = 0;
  std::vector<double> skill_p_;    // p_k, normalised over the K skills
  std::vector<double> skill_cdf_;  // cumulative p_k for sampling
  std::vector<double> weights_;    // w_r, normalised
  std::vector<double> weight_cdf_;
  std::vector<uint16_t> successors_;  // 0 for a token outside the skill's alphabet
  std::vector<uint16_t> letters_;     // (skills, m): each skill's alphabet, the first body token's choices
  std::vector<unsigned char> member_;  // (skills, V−1): 1 where the token is in the skill's alphabet
};

}  // namespace isoflop::train
