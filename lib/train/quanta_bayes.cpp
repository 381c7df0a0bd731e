// The quanta source's Bayes-optimal window predictor and its floor.
#include "train/quanta_bayes.hpp"

#include <algorithm>
#include <cmath>

namespace isoflop::train {

QuantaPredictor::QuantaPredictor(const QuantaSource& source) : source_(source), body_(source.body()) {
  const int V = body_, b = source.branching(), K = source.options().skills;
  mixture_.assign(static_cast<size_t>(V) * V, 0.0);
  first_mass_.assign(V, 0.0);
  for (int k = 0; k < K; ++k)
    for (int x = 1; x <= V; ++x)
      if (source.uses(k, x)) first_mass_[x - 1] += source.skill_probability(k);
  pair_offsets_.assign(static_cast<size_t>(V) * V + 1, 0);
  // Count, then fill, the skills allowing each transition; a successor repeated at two ranks counts once.
  auto each_pair = [&](auto&& visit) {
    for (int k = 0; k < K; ++k)
      for (int x = 1; x <= V; ++x)
        for (int r = 0; r < b && source.uses(k, x); ++r) {
          const int y = source.successor(k, x, r);
          bool first = true;
          for (int q = 0; q < r; ++q) first = first && source.successor(k, x, q) != y;
          if (first) visit(k, x, y);
        }
  };
  each_pair([&](int k, int x, int y) {
    const size_t pair = static_cast<size_t>(x - 1) * V + (y - 1);
    ++pair_offsets_[pair + 1];
    mixture_[pair] += source.skill_probability(k) * source.transition(k, x, y);
  });
  for (size_t i = 1; i < pair_offsets_.size(); ++i) pair_offsets_[i] += pair_offsets_[i - 1];
  pair_skills_.resize(static_cast<size_t>(pair_offsets_.back()));
  pair_probs_.resize(pair_skills_.size());
  std::vector<int64_t> fill(pair_offsets_.begin(), pair_offsets_.end() - 1);
  each_pair([&](int k, int x, int y) {
    const int64_t at = fill[static_cast<size_t>(x - 1) * V + (y - 1)]++;  // k ascending within each pair
    pair_skills_[at] = k;
    pair_probs_[at] = static_cast<float>(source.transition(k, x, y));
  });
  alive_.resize(K);
  posterior_.resize(K);
}

double QuantaPredictor::window_nats(const int32_t* w, int seq) {
  const double h = source_.hazard();
  const double log_stay = std::log1p(-h), log_end = std::log(h), log_m = std::log(static_cast<double>(source_.alphabet()));
  double nats = 0;
  int run = w[0] == 0 ? 0 : 1;  // body tokens since the last separator (or the window's start)
  size_t alive = 0;
  for (int i = 0; i < seq; ++i) {
    const int x = w[i], y = w[i + 1];
    if (x == 0) {  // after a separator: a body token uniform on the alphabet of a skill drawn from the prior
      nats += y == 0 ? INFINITY : log_m - std::log(first_mass_[y - 1]);
      run = y == 0 ? 0 : 1;
      continue;
    }
    if (y == 0) {
      nats -= log_end;
      run = 0;
      continue;
    }
    const size_t pair = static_cast<size_t>(x - 1) * body_ + (y - 1);
    const int32_t* skills = pair_skills_.data() + pair_offsets_[pair];
    const float* probs = pair_probs_.data() + pair_offsets_[pair];
    const size_t allowed = static_cast<size_t>(pair_offsets_[pair + 1] - pair_offsets_[pair]);
    double q = 0;
    if (run == 1) {
      // Posterior ∝ p_k over the skills whose alphabet holds x (each makes x with the same 1/m): the predictive
      // is the prior mixture over them; the skills allowing (x, y) carry on.
      const double joint = mixture_[pair];
      q = joint / first_mass_[x - 1];
      for (size_t j = 0; j < allowed; ++j) {
        alive_[j] = skills[j];
        posterior_[j] = source_.skill_probability(skills[j]) * probs[j] / joint;
      }
      alive = allowed;
    } else {
      // π_k ← π_k T_k(y | x): both lists are sorted by skill, so the survivors are their merge.
      size_t kept = 0, j = 0;
      for (size_t a = 0; a < alive && j < allowed; ++a) {
        while (j < allowed && skills[j] < alive_[a]) ++j;
        if (j < allowed && skills[j] == alive_[a]) {
          const double p = posterior_[a] * probs[j];
          alive_[kept] = alive_[a];
          posterior_[kept++] = p;
          q += p;
        }
      }
      alive = kept;
      for (size_t a = 0; a < alive; ++a) posterior_[a] /= q;
    }
    nats -= log_stay + std::log(q);
    ++run;
  }
  return nats;
}

FloorEstimate QuantaPredictor::floor(const std::vector<int32_t>& tokens, int seq, long long windows) {
  FloorEstimate e;
  e.windows = windows;
  if (windows <= 0 || seq <= 0 || tokens.size() < static_cast<size_t>(windows) * seq + 1) return e;
  double sum = 0, sum_sq = 0;
  for (long long i = 0; i < windows; ++i) {
    const double mean = window_nats(tokens.data() + i * seq, seq) / seq;
    sum += mean;
    sum_sq += mean * mean;
  }
  const double n = static_cast<double>(windows);
  e.loss = sum / n;
  if (windows > 1) e.standard_error = std::sqrt(std::max(0.0, (sum_sq - n * e.loss * e.loss) / (n - 1)) / n);
  return e;
}

}  // namespace isoflop::train
