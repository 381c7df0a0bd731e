// The Markov source: construction, exact entropy rate, sampling.
#include "train/markov.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.hpp"
#include "train/rng.hpp"

namespace isoflop::train {

void MarkovOptions::validate() const {
  if (vocab < 2) throw InputError("model.vocab: " + std::to_string(vocab) + " must be at least 2 for the markov source");
  if (order < 1) throw InputError("data.order: " + std::to_string(order) + " must be a positive integer");
  double contexts = std::pow(static_cast<double>(vocab), order);
  if (contexts > 4194304.0)
    throw InputError("data.order: vocab^order = " + std::to_string(vocab) + "^" + std::to_string(order) +
                     " exceeds 4194304 contexts");
  if (branching < 1 || branching > vocab)
    throw InputError("data.branching: " + std::to_string(branching) + " must be in [1, vocab = " +
                     std::to_string(vocab) + "]");
  if (!(zipf >= 0) || !std::isfinite(zipf)) throw InputError("data.zipf: must be a finite number ≥ 0");
  if (!(smoothing >= 0 && smoothing < 1)) throw InputError("data.smoothing: must be in [0, 1)");
}

MarkovSource::MarkovSource(const MarkovOptions& options) : options_(options) {
  options_.validate();
  const int V = options_.vocab, b = options_.branching;
  contexts_ = 1;
  for (int i = 0; i < options_.order; ++i) contexts_ *= V;
  successors_.resize(contexts_ * b);
  weights_.resize(contexts_ * b);
  Rng rng(options_.seed);
  std::vector<int32_t> perm(V);
  std::vector<double> zipf(b);
  double zsum = 0;
  for (int r = 0; r < b; ++r) zsum += zipf[r] = 1.0 / std::pow(r + 1.0, options_.zipf);
  for (long long c = 0; c < contexts_; ++c) {
    // b distinct successors by a partial Fisher–Yates shuffle, rank r gets weight ∝ 1/(r+1)^s.
    std::iota(perm.begin(), perm.end(), 0);
    for (int r = 0; r < b; ++r) {
      const int j = r + static_cast<int>(rng.below(V - r));
      std::swap(perm[r], perm[j]);
      successors_[c * b + r] = perm[r];
      weights_[c * b + r] = zipf[r] / zsum;
    }
  }

  // Stationary distribution over contexts by power iteration from uniform. The uniform part of each row
  // makes every k-step transition positive when smoothing > 0; with smoothing 0 the iteration still
  // converges for the aperiodic chains random rows give in practice, and a non-converging chain is an error.
  const double eps = options_.smoothing;
  std::vector<double> pi(contexts_, 1.0 / contexts_), next(contexts_);
  const long long suffixes = contexts_ / V;
  std::vector<double> uniform_mass(suffixes);
  bool converged = false;
  for (int it = 0; it < 200000 && !converged; ++it) {
    std::fill(next.begin(), next.end(), 0.0);
    std::fill(uniform_mass.begin(), uniform_mass.end(), 0.0);
    for (long long c = 0; c < contexts_; ++c) {
      for (int r = 0; r < b; ++r) next[next_context(c, successors_[c * b + r])] += pi[c] * (1 - eps) * weights_[c * b + r];
      uniform_mass[c % suffixes] += pi[c] * eps;
    }
    for (long long s = 0; s < suffixes; ++s)
      for (int y = 0; y < V; ++y) next[s * V + y] += uniform_mass[s] / V;
    double diff = 0, total = 0;
    for (long long c = 0; c < contexts_; ++c) {
      diff += std::fabs(next[c] - pi[c]);
      total += next[c];
    }
    for (long long c = 0; c < contexts_; ++c) pi[c] = next[c] / total;
    converged = diff < 1e-14;
  }
  if (!converged)
    throw InputError("data.smoothing: the chain has no unique stationary distribution with smoothing " +
                     std::to_string(eps) + "; use smoothing > 0");

  double h = 0;
  for (long long c = 0; c < contexts_; ++c) {
    double row = 0, in_support = 0;
    for (int r = 0; r < b; ++r) {
      const double p = (1 - eps) * weights_[c * b + r] + eps / V;
      if (p > 0) row -= p * std::log(p);
      in_support += 1;
    }
    if (eps > 0) row -= (V - in_support) * (eps / V) * std::log(eps / V);
    h += pi[c] * row;
  }
  entropy_rate_ = h;
}

double MarkovSource::probability(long long context, int y) const {
  const int b = options_.branching;
  double p = options_.smoothing / options_.vocab;
  for (int r = 0; r < b; ++r)
    if (successors_[context * b + r] == y) p += (1 - options_.smoothing) * weights_[context * b + r];
  return p;
}

std::vector<int32_t> MarkovSource::sample(long long n, uint64_t seed) const {
  Rng rng(seed);
  const int V = options_.vocab, b = options_.branching;
  std::vector<int32_t> out(n);
  long long context = 0;
  for (long long i = 0; i < n; ++i) {
    int y;
    if (i < options_.order) {
      y = static_cast<int>(rng.below(V));
    } else if (rng.uniform() < options_.smoothing) {
      y = static_cast<int>(rng.below(V));
    } else {
      double u = rng.uniform();
      int r = 0;
      while (r < b - 1 && u >= weights_[context * b + r]) u -= weights_[context * b + r++];
      y = successors_[context * b + r];
    }
    out[i] = y;
    context = next_context(context, y);
  }
  return out;
}

double MarkovSource::cross_entropy(const std::vector<int32_t>& tokens) const {
  long long context = 0, count = 0;
  double total = 0;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (static_cast<long long>(i) >= options_.order) {
      total -= std::log(probability(context, tokens[i]));
      ++count;
    }
    context = next_context(context, tokens[i]);
  }
  return count > 0 ? total / count : 0.0;
}

}  // namespace isoflop::train
