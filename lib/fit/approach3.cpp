// Approach 3: the Huber/log-sum-exp objective with its analytic gradient, L-BFGS (fit/lbfgs.hpp) from every
// grid start in parallel (OpenMP), and the choice of the best start.
#include "fit/approach3.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "fit/lbfgs.hpp"
#include "fit/lse_math.hpp"
#include "units/format.hpp"

// Copies of the objective for AVX2+FMA and for AVX-512 machines besides the baseline x86-64 one, chosen by
// the loader on x86-64 Linux (GCC 12 builds all three; clang 14 leaves out the AVX-512 one).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__)
#define ISOFLOP_FIT_CLONES __attribute__((target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define ISOFLOP_FIT_CLONES
#endif

namespace isoflop::fit {
namespace {

// The runs in the form the objective reads: logs of N, D and the loss, contiguous.
struct LogData {
  std::vector<double> log_n, log_d, log_l;
  explicit LogData(const std::vector<Run>& runs) {
    for (const auto& r : runs) {
      log_n.push_back(std::log(r.params));
      log_d.push_back(std::log(r.tokens));
      log_l.push_back(std::log(r.loss));
    }
  }
};

// Eq. 11 of Hoffmann et al. 2022: Σ Huber_δ(LSE(a − α log N, b − β log D, e) − log L).
// The LSE is taken around its largest term m, so every exponential has a non-positive argument and the
// sum lies in [1, 3]: lse_math.hpp's branch-free exp and log cover exactly that, and the loops vectorise
// (on x86-64 copies are also built for AVX2+FMA and for AVX-512 and the loader picks one). Extreme points
// of a line search stay finite; a NaN anywhere makes the objective NaN, which the caller reports as +max.
// Runs are taken a block at a time in three passes (exponentials; log and reciprocal; Huber and gradient)
// rather than one loop: each pass is short enough for the processor to overlap the long dependency chains
// of many runs, where one fused loop waits on them (it takes about 40% longer per evaluation).
ISOFLOP_FIT_CLONES
double objective(const double* x, const LogData& d, double delta, Reduce reduce, double* grad) {
  const double a = x[kA], b = x[kB], e = x[kE], alpha = x[kAlpha], beta = x[kBeta];
  const size_t n = d.log_l.size();
  constexpr size_t kBlock = 256;
  // Per run of the block: the LSE's largest term m, its three terms e^(u−m), e^(v−m), e^(e−m) (one is 1),
  // their sum s ∈ [1, 3], then the residual r = LSE − log L and 1/s.
  alignas(64) double m_buf[kBlock], s_buf[kBlock], eu_buf[kBlock], ev_buf[kBlock], ee_buf[kBlock];
  double f = 0, ga = 0, gb = 0, ge = 0, galpha = 0, gbeta = 0;
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t count = std::min(kBlock, n - begin);
    const double* log_n = d.log_n.data() + begin;
    const double* log_d = d.log_d.data() + begin;
    const double* log_l = d.log_l.data() + begin;
#pragma omp simd
    for (size_t i = 0; i < count; ++i) {
      const double u = a - alpha * log_n[i], v = b - beta * log_d[i];
      const double uv = u > v ? u : v;
      const bool e_max = !(uv > e), u_max = !e_max && u > v, v_max = !e_max && !u_max;
      const double m = e_max ? e : uv;
      // The largest term is exactly 1: only the other two exponentials are taken.
      const double first = exp_nonpositive(u_max ? v - m : u - m);   // e^(u−m), or e^(v−m) when u is largest
      const double second = exp_nonpositive(e_max ? v - m : e - m);  // e^(e−m), or e^(v−m) when e is largest
      eu_buf[i] = u_max ? 1.0 : first;
      ev_buf[i] = v_max ? 1.0 : (u_max ? first : second);
      ee_buf[i] = e_max ? 1.0 : second;
      s_buf[i] = 1.0 + first + second;
      m_buf[i] = m;
    }
#pragma omp simd
    for (size_t i = 0; i < count; ++i) {
      const LogReciprocal lr = log_reciprocal_one_to_three(s_buf[i]);
      m_buf[i] += lr.log - log_l[i];  // now the residual r
      s_buf[i] = lr.reciprocal;       // now 1/s
    }
#pragma omp simd reduction(+ : f, ga, gb, ge, galpha, gbeta)
    for (size_t i = 0; i < count; ++i) {
      const double r = m_buf[i];
      // Huber without a branch: ψ = clamp(r, −δ, δ) is dHuber/dr, and Huber = ψ·(r − ψ/2) in both regimes.
      const double psi = r < -delta ? -delta : (r > delta ? delta : r);
      f += psi * (r - 0.5 * psi);
      const double w = psi * s_buf[i];  // ψ · softmax weights
      ga += w * eu_buf[i];
      gb += w * ev_buf[i];
      ge += w * ee_buf[i];
      galpha -= w * eu_buf[i] * log_n[i];
      gbeta -= w * ev_buf[i] * log_d[i];
    }
  }
  const double scale = reduce == Reduce::kMean ? 1.0 / static_cast<double>(n) : 1.0;
  if (grad) {
    grad[kA] = ga * scale;
    grad[kB] = gb * scale;
    grad[kE] = ge * scale;
    grad[kAlpha] = galpha * scale;
    grad[kBeta] = gbeta * scale;
  }
  return f * scale;
}

DescentResult<5> descend(const LogData& data, const LawPoint& start, const Approach3Options& o) {
  const auto f = [&](const double* x, double* grad) { return objective(x, data, o.huber_delta, o.reduce, grad); };
  return lbfgs_descent(f, start, DescentRules{o.ftol, o.gtol, o.max_evals});
}

Approach3Result summarise(const LawPoint& x, double f, size_t runs) {
  Approach3Result r;
  r.x = x;
  r.objective = f;
  r.A = std::exp(x[kA]);
  r.B = std::exp(x[kB]);
  r.E = std::exp(x[kE]);
  r.alpha = x[kAlpha];
  r.beta = x[kBeta];
  r.runs = runs;
  set_allocation(&r);
  return r;
}

// Repeated (N, D) points (the same run twice, or a bootstrap resample's draws) add no information.
void check_runs(const std::vector<Run>& runs) {
  const size_t distinct = distinct_points(runs);
  if (distinct < 5)
    throw InputError("Approach 3 fits 5 parameters (E, A, B, alpha, beta) but only " + std::to_string(distinct) +
                     " distinct (N, D) are left; give at least 5");
}

}  // namespace

void Approach3Options::validate() const {
  if (!(huber_delta > 0) || !std::isfinite(huber_delta))
    throw FieldError("huber_delta", std::to_string(huber_delta) + " must be a positive number");
  DescentRules{ftol, gtol, max_evals}.validate();
  if (grid.size() == 0) throw FieldError("grid", "no starting points");
  if (threads < 0) throw FieldError("threads", "must be 0 (default) or more");
}

Allocation allocation_of(double A, double B, double alpha, double beta) {
  const double s = alpha + beta;
  return {beta / s, alpha / s, std::pow(alpha * A / (beta * B), 1 / s)};
}

std::optional<std::string> approach3_exponent_problem(double alpha, double beta) {
  const auto text = [](double v) { return units::format_significant(v, 3); };
  if (!(alpha > 0))
    return "alpha = " + text(alpha) + " is not positive: in these runs the loss does not fall as parameters grow";
  if (!(beta > 0))
    return "beta = " + text(beta) + " is not positive: in these runs the loss does not fall as tokens grow";
  return std::nullopt;
}

void set_allocation(Approach3Result* r) {
  const Allocation allocation = allocation_of(r->A, r->B, r->alpha, r->beta);
  r->a = allocation.a, r->b = allocation.b, r->G = allocation.G;
}

double approach3_log_loss(const LawPoint& x, double params, double tokens) {
  const double u = x[kA] - x[kAlpha] * std::log(params), v = x[kB] - x[kBeta] * std::log(tokens);
  const double m = std::max({u, v, x[kE]});
  return m + std::log(std::exp(u - m) + std::exp(v - m) + std::exp(x[kE] - m));
}

double approach3_objective(const LawPoint& x, const std::vector<Run>& runs, double huber_delta, Reduce reduce,
                           LawPoint* grad) {
  const LogData data(runs);
  return objective(x.data(), data, huber_delta, reduce, grad ? grad->data() : nullptr);
}

Approach3Result fit_approach3(std::vector<Run> runs, const Approach3Options& o) {
  o.validate();
  check_runs(runs);
  sort_canonically(&runs);
  const LogData data(runs);
  const std::vector<LawPoint> starts = o.grid.points();
  const auto results =
      descend_from_all(starts, o.threads, [&](const LawPoint& start) { return descend(data, start, o); });
  const size_t best = best_start(results);
  Approach3Result r = summarise(results[best].x, results[best].f, runs.size());
  r.starts = starts.size();
  const LawPoint& xb = results[best].x;
  for (const auto& s : results) {
    r.evaluations += s.evaluations;
    r.starts_failed += s.failed;
    const bool same_objective = s.f - r.objective <= o.basin_rtol * std::fabs(r.objective);
    const double tol = o.basin_rtol * 1e3;
    bool same_point = true;
    for (int k = 0; k < 5; ++k) {
      const double scale = (k == kA || k == kB) ? std::max(1.0, std::fabs(xb[k])) : 1.0;
      same_point = same_point && std::fabs(s.x[k] - xb[k]) <= tol * scale;
    }
    r.starts_in_best_basin += same_objective || same_point;
  }
  return r;
}

Approach3Result fit_approach3_from(std::vector<Run> runs, const LawPoint& start, const Approach3Options& o) {
  o.validate();
  check_runs(runs);
  sort_canonically(&runs);
  const LogData data(runs);
  const DescentResult<5> s = descend(data, start, o);
  Approach3Result r = summarise(s.x, s.f, runs.size());
  r.starts = 1;
  r.starts_in_best_basin = 1;
  r.starts_failed = s.failed;
  r.evaluations = s.evaluations;
  return r;
}

}  // namespace isoflop::fit
