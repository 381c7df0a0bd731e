// The quanta source: its skills, their Zipf law, and sampling.
#include "train/quanta.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "core/error.hpp"
#include "train/rng.hpp"

namespace isoflop::train {
namespace {

// The most table entries (skills × body tokens × branching) a source may hold: 128 MiB of successors.
constexpr double kMaxEntries = 67108864.0;

std::vector<double> cumulative(const std::vector<double>& p) {
  std::vector<double> c(p.size());
  std::partial_sum(p.begin(), p.end(), c.begin());
  c.back() = 1.0;  // rounding must not leave a gap above the last entry
  return c;
}

// The index i with cdf[i−1] ≤ u < cdf[i].
int draw(const std::vector<double>& cdf, double u) {
  const auto it = std::upper_bound(cdf.begin(), cdf.end(), u);
  return static_cast<int>(std::min<std::ptrdiff_t>(it - cdf.begin(), static_cast<std::ptrdiff_t>(cdf.size()) - 1));
}

}  // namespace

void QuantaOptions::validate() const {
  if (vocab < 3 || vocab > 65536)
    throw InputError("model.vocab: " + std::to_string(vocab) +
                     " must be in [3, 65536] for the quanta source (a separator and at least two body tokens)");
  if (skills < 1 || skills > (1 << 24)) throw InputError("data.skills: must be in [1, 16777216]");
  if (!(alpha >= 0) || !std::isfinite(alpha)) throw InputError("data.alpha: must be a finite number ≥ 0");
  if (branching < 1 || branching > vocab - 1)
    throw InputError("data.branching: " + std::to_string(branching) + " must be in [1, vocab − 1 = " +
                     std::to_string(vocab - 1) + "]");
  if (!(zipf >= 0) || !std::isfinite(zipf)) throw InputError("data.zipf: must be a finite number ≥ 0");
  if (!(segment >= 1) || !std::isfinite(segment))
    throw InputError("data.segment: must be a finite mean segment length ≥ 1 token");
  if (static_cast<double>(skills) * (vocab - 1) * branching > kMaxEntries)
    throw InputError("data.skills: skills × (vocab − 1) × branching = " +
                     std::to_string(static_cast<double>(skills) * (vocab - 1) * branching) + " exceeds " +
                     std::to_string(static_cast<long long>(kMaxEntries)) + " table entries");
}

void QuantaSource::init_laws() {
  options_.validate();
  hazard_ = 1.0 / options_.segment;
  skill_p_.resize(options_.skills);
  for (int k = 0; k < options_.skills; ++k) skill_p_[k] = std::pow(k + 1.0, -(1.0 + options_.alpha));
  const double total = std::accumulate(skill_p_.begin(), skill_p_.end(), 0.0);
  for (double& p : skill_p_) p /= total;
  skill_cdf_ = cumulative(skill_p_);
  weights_.resize(options_.branching);
  for (int r = 0; r < options_.branching; ++r) weights_[r] = std::pow(r + 1.0, -options_.zipf);
  const double wsum = std::accumulate(weights_.begin(), weights_.end(), 0.0);
  for (double& w : weights_) w /= wsum;
  weight_cdf_ = cumulative(weights_);
}

QuantaSource::QuantaSource(const QuantaOptions& options) : options_(options) {
  init_laws();
  const int V = body(), b = options_.branching;
  successors_.resize(static_cast<size_t>(options_.skills) * V * b);
  Rng rng(options_.seed);
  std::vector<uint16_t> perm(V);
  for (int k = 0; k < options_.skills; ++k)
    for (int r = 0; r < b; ++r) {
      std::iota(perm.begin(), perm.end(), uint16_t{1});
      for (int i = V - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);  // Fisher–Yates
      for (int x = 0; x < V; ++x) successors_[(static_cast<size_t>(k) * V + x) * b + r] = perm[x];
    }
}

QuantaSource::QuantaSource(const QuantaOptions& options, std::vector<uint16_t> successors)
    : options_(options), successors_(std::move(successors)) {
  init_laws();
  const int V = body(), b = options_.branching;
  if (successors_.size() != static_cast<size_t>(options_.skills) * V * b)
    throw InputError("data.skills: the successor table has " + std::to_string(successors_.size()) +
                     " entries, expected skills × (vocab − 1) × branching");
  std::vector<char> seen(V + 1);
  for (int k = 0; k < options_.skills; ++k)
    for (int r = 0; r < b; ++r) {
      std::fill(seen.begin(), seen.end(), 0);
      for (int x = 1; x <= V; ++x) {
        const int y = successor(k, x, r);
        if (y < 1 || y > V || seen[y])
          throw InputError("data.skills: skill " + std::to_string(k) + " rank " + std::to_string(r) +
                           " is not a permutation of the body tokens");
        seen[y] = 1;
      }
    }
}

double QuantaSource::skill_entropy(int k) const {
  double h = 0;
  for (int x = 1; x <= body(); ++x)
    for (int r = 0; r < options_.branching; ++r) {
      // Each distinct successor once, with its merged probability.
      const int y = successor(k, x, r);
      bool first = true;
      for (int q = 0; q < r; ++q) first = first && successor(k, x, q) != y;
      if (!first) continue;
      const double p = transition(k, x, y);
      if (p > 0) h -= p * std::log(p);
    }
  return h / body();
}

std::vector<int32_t> QuantaSource::sample(long long n, uint64_t seed) const {
  Rng rng(seed);
  std::vector<int32_t> out(static_cast<size_t>(std::max(0LL, n)));
  const double h = hazard_;
  long long i = 0;
  while (i < n) {
    out[i++] = 0;  // separator
    if (i >= n) break;
    const int k = draw(skill_cdf_, rng.uniform());
    int x = 1 + static_cast<int>(rng.below(body()));
    out[i++] = x;
    while (i < n) {
      const double u = rng.uniform();
      if (u < h) break;  // the segment ends: the next token is a separator
      // (u − h)/(1 − h) is uniform on [0, 1) again: one draw decides both the end and the successor.
      x = successor(k, x, draw(weight_cdf_, (u - h) / (1 - h)));
      out[i++] = x;
    }
  }
  return out;
}

}  // namespace isoflop::train
