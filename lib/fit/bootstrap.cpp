// Bootstrap resampling of runs, parallel refits, and percentile intervals.
#include "fit/bootstrap.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <random>

#include "core/error.hpp"

namespace isoflop::fit {
namespace {

// SplitMix64: a well-mixed per-resample seed from (seed, k).
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

Interval interval(const std::vector<double>& v) {
  return {quantile(v, 0.025), quantile(v, 0.10), quantile(v, 0.5), quantile(v, 0.90), quantile(v, 0.975)};
}

// Each named member's interval over the refits that succeeded; those that failed are counted in *failed.
template <class Result>
std::map<std::string, Interval> intervals_of(const std::vector<std::optional<Result>>& fits,
                                             std::initializer_list<std::pair<const char*, double Result::*>> members,
                                             int* failed) {
  std::map<std::string, std::vector<double>> values;
  for (const auto& f : fits) {
    if (!f) {
      ++*failed;
      continue;
    }
    for (const auto& [name, member] : members) values[name].push_back((*f).*member);
  }
  std::map<std::string, Interval> out;
  for (const auto& [name, v] : values) out[name] = interval(v);
  return out;
}

}  // namespace

void BootstrapOptions::validate() const {
  if (resamples < 2 || resamples > 1000000) throw FieldError("bootstrap", "must be from 2 to 1,000,000 resamples");
  if (!(refit_ftol > 0 && refit_ftol < 1) || !(refit_gtol >= 0))
    throw InputError("bootstrap: refit_ftol must be in (0, 1) and refit_gtol at least 0");
}

Approach3Options refit_options(Approach3Options a3, const BootstrapOptions& options) {
  a3.ftol = options.refit_ftol;
  a3.gtol = options.refit_gtol;
  return a3;
}

InteractionOptions refit_options(InteractionOptions ia, const BootstrapOptions& options) {
  ia.rules.ftol = options.refit_ftol;
  ia.rules.gtol = options.refit_gtol;
  return ia;
}

std::optional<InteractionResult> refit_interaction(const std::vector<Run>& sample, const InteractionPoint& start,
                                                   const InteractionOptions& refit) {
  try {
    InteractionResult r = fit_interaction_from(sample, start, refit);
    if (std::isfinite(r.objective) && std::isfinite(r.a) && r.starts_failed == 0) return r;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

std::optional<Approach3Result> refit_approach3(const std::vector<Run>& sample, const LawPoint& start,
                                               const Approach3Options& refit) {
  try {
    Approach3Result r = fit_approach3_from(sample, start, refit);
    if (std::isfinite(r.objective) && r.starts_failed == 0) return r;
  } catch (const InputError&) {
  }
  return std::nullopt;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t i = static_cast<size_t>(std::floor(pos));
  const size_t j = std::min(i + 1, v.size() - 1);
  return v[i] + (pos - static_cast<double>(i)) * (v[j] - v[i]);
}

BootstrapResult bootstrap(std::vector<Run> runs, const LawPoint& start, const Approach3Options& a3_options,
                          const Approach2Options& a2, const BootstrapOptions& o) {
  o.validate();
  const Approach3Options a3 = refit_options(a3_options, o);
  a3.validate();
  sort_canonically(&runs);
  const int k_total = o.resamples;
  std::vector<std::optional<Approach3Result>> fits3(k_total);
  std::vector<std::optional<Approach2Result>> fits2(k_total);
  std::vector<std::optional<InteractionResult>> fits_i(k_total);
  const InteractionOptions ia = refit_options(o.interaction, o);
  if (o.interaction_start) ia.validate();  // a bad option is an error here, not every resample failing
  int done = 0;
  const int threads = a3.threads > 0 ? a3.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int k = 0; k < k_total; ++k) {
    std::mt19937_64 rng(mix(o.seed ^ mix(static_cast<std::uint64_t>(k))));
    std::vector<Run> sample(runs.size());
    for (auto& r : sample) r = runs[rng() % runs.size()];  // modulo bias < 2^-50 for any table size
    fits3[k] = refit_approach3(sample, start, a3);
    if (o.interaction_start) fits_i[k] = refit_interaction(sample, *o.interaction_start, ia);
    if (o.approach2) {
      try {
        fits2[k] = fit_approach2(sample, a2);
      } catch (const InputError&) {
      }
    }
    if (o.progress) {
#pragma omp critical(isoflop_bootstrap_progress)
      o.progress(++done, k_total);
    }
  }
  BootstrapResult result;
  result.resamples = k_total;
  result.approach3 = intervals_of(fits3,
                                  {{"E", &Approach3Result::E},
                                   {"A", &Approach3Result::A},
                                   {"B", &Approach3Result::B},
                                   {"alpha", &Approach3Result::alpha},
                                   {"beta", &Approach3Result::beta},
                                   {"a", &Approach3Result::a},
                                   {"b", &Approach3Result::b},
                                   {"G", &Approach3Result::G}},
                                  &result.approach3_failed);
  if (o.approach2)
    result.approach2 =
        intervals_of(fits2, {{"a", &Approach2Result::a}, {"b", &Approach2Result::b}}, &result.approach2_failed);
  if (o.interaction_start)
    result.interaction = intervals_of(fits_i,
                                      {{"E", &InteractionResult::E},
                                       {"A", &InteractionResult::A},
                                       {"B", &InteractionResult::B},
                                       {"alpha", &InteractionResult::alpha},
                                       {"beta", &InteractionResult::beta},
                                       {"gamma", &InteractionResult::gamma},
                                       {"a", &InteractionResult::a},
                                       {"b", &InteractionResult::b},
                                       {"G", &InteractionResult::G}},
                                      &result.interaction_failed);
  return result;
}

}  // namespace isoflop::fit
