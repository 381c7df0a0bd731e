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
  if (alphabet != 0 && (alphabet < 2 || alphabet > vocab - 1))
    throw InputError("data.alphabet: " + std::to_string(alphabet) + " must be 0 (all) or in [2, vocab − 1 = " +
                     std::to_string(vocab - 1) + "]");
  if (branching > (alphabet > 0 ? alphabet : vocab - 1))
    throw InputError("data.branching: " + std::to_string(branching) + " must be at most data.alphabet = " +
                     std::to_string(alphabet));
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

namespace {

// Fisher–Yates over v.
void shuffle(std::vector<uint16_t>& v, Rng& rng) {
  for (size_t i = v.size() - 1; i > 0; --i) std::swap(v[i], v[rng.below(i + 1)]);
}

}  // namespace

void QuantaSource::set_alphabets(const std::vector<uint16_t>& letters) {
  const int V = body(), m = alphabet();
  letters_ = letters;
  member_.assign(static_cast<size_t>(options_.skills) * V, 0);
  for (int k = 0; k < options_.skills; ++k)
    for (int i = 0; i < m; ++i) member_[static_cast<size_t>(k) * V + (letters_[static_cast<size_t>(k) * m + i] - 1)] = 1;
}

QuantaSource::QuantaSource(const QuantaOptions& options) : options_(options) {
  init_laws();
  const int V = body(), m = alphabet(), b = options_.branching, K = options_.skills;
  successors_.assign(static_cast<size_t>(K) * V * b, 0);
  std::vector<uint16_t> letters(static_cast<size_t>(K) * m);
  Rng rng(options_.seed);
  std::vector<uint16_t> all(V), perm(m);
  for (int k = 0; k < K; ++k) {
    // The skill's alphabet: its first m tokens of a shuffled body, or the whole body in order (no draw, so a
    // source without `alphabet` keeps the skills it always had).
    std::iota(all.begin(), all.end(), uint16_t{1});
    if (m < V) shuffle(all, rng);
    const uint16_t* letter = all.data();
    std::copy(letter, letter + m, letters.begin() + static_cast<std::ptrdiff_t>(k) * m);
    for (int r = 0; r < b; ++r) {
      std::iota(perm.begin(), perm.end(), uint16_t{0});
      shuffle(perm, rng);
      for (int i = 0; i < m; ++i)
        successors_[(static_cast<size_t>(k) * V + (letter[i] - 1)) * b + r] = letter[perm[i]];
    }
  }
  set_alphabets(letters);
}

QuantaSource::QuantaSource(const QuantaOptions& options, std::vector<uint16_t> successors)
    : options_(options), successors_(std::move(successors)) {
  init_laws();
  const int V = body(), b = options_.branching;
  if (successors_.size() != static_cast<size_t>(options_.skills) * V * b)
    throw InputError("data.skills: the successor table has " + std::to_string(successors_.size()) +
                     " entries, expected skills × (vocab − 1) × branching");
  if (alphabet() != V) throw InputError("data.alphabet: given skills use the whole body alphabet");
  std::vector<uint16_t> letters(static_cast<size_t>(options_.skills) * V);
  for (size_t i = 0; i < letters.size(); ++i) letters[i] = static_cast<uint16_t>(1 + i % V);
  set_alphabets(letters);
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
  for (int x = 1; x <= body(); ++x) {
    if (!uses(k, x)) continue;
    for (int r = 0; r < options_.branching; ++r) {
      // Each distinct successor once, with its merged probability.
      const int y = successor(k, x, r);
      bool first = true;
      for (int q = 0; q < r; ++q) first = first && successor(k, x, q) != y;
      if (!first) continue;
      const double p = transition(k, x, y);
      if (p > 0) h -= p * std::log(p);
    }
  }
  return h / alphabet();
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
    const int m = alphabet();
    int x = letters_[static_cast<size_t>(k) * m + rng.below(m)];  // uniform on the skill's alphabet
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
