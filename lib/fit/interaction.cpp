// Approach 3 with an interaction exponent: its objective and gradient, and the fit from a grid of starts.
#include "fit/interaction.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/error.hpp"
#include "fit/lbfgs.hpp"

namespace isoflop::fit {
namespace {

struct LogRun {
  double log_n, log_d, log_l;
};

std::vector<LogRun> log_runs(const std::vector<Run>& runs) {
  std::vector<LogRun> out;
  out.reserve(runs.size());
  for (const auto& r : runs) out.push_back({std::log(r.params), std::log(r.tokens), std::log(r.loss)});
  return out;
}

// ln(e^x + e^y) around the larger term.
double log_add(double x, double y) {
  const double m = std::max(x, y);
  return m + std::log1p(std::exp(std::min(x, y) - m));
}

// ln L̂ = LSE(e, γ·s) with s = LSE(a − α ln N, b − β ln D); the gradient by the chain rule through both LSEs,
// whose softmax weights are e^(u − s), e^(v − s) inside and e^(e − p), e^(γs − p) outside.
double objective(const double* x, const std::vector<LogRun>& runs, double delta, double* grad) {
  const double a = x[kA], b = x[kB], e = x[kE], alpha = x[kAlpha], beta = x[kBeta], gamma = std::exp(x[kLogGamma]);
  double f = 0;
  std::array<double, 6> g{};
  for (const auto& r : runs) {
    const double u = a - alpha * r.log_n, v = b - beta * r.log_d;
    const double s = log_add(u, v);
    const double t = gamma * s;
    const double p = log_add(e, t);
    const double res = p - r.log_l;
    const double psi = std::clamp(res, -delta, delta);  // dHuber/dr; Huber = ψ·(r − ψ/2) in both regimes
    f += psi * (res - 0.5 * psi);
    if (!grad) continue;
    const double wt = std::exp(t - p), we = std::exp(e - p), wu = std::exp(u - s), wv = std::exp(v - s);
    const double inner = psi * wt * gamma;
    g[kA] += inner * wu;
    g[kB] += inner * wv;
    g[kE] += psi * we;
    g[kAlpha] -= inner * wu * r.log_n;
    g[kBeta] -= inner * wv * r.log_d;
    g[kLogGamma] += inner * s;
  }
  if (grad) std::copy(g.begin(), g.end(), grad);
  return f;
}

InteractionResult summarise(const DescentResult<6>& d, size_t runs) {
  InteractionResult r;
  r.x = d.x;
  r.objective = d.f;
  r.A = std::exp(d.x[kA]);
  r.B = std::exp(d.x[kB]);
  r.E = std::exp(d.x[kE]);
  r.alpha = d.x[kAlpha];
  r.beta = d.x[kBeta];
  r.gamma = std::exp(d.x[kLogGamma]);
  // Eq. 4, as for Approach 3: the allocation does not depend on γ (see the header).
  const Allocation allocation = allocation_of(r.A, r.B, r.alpha, r.beta);
  r.a = allocation.a, r.b = allocation.b, r.G = allocation.G;
  r.runs = runs;
  return r;
}

void check_runs(const std::vector<Run>& runs) {
  const size_t distinct = distinct_points(runs);
  if (distinct < 6)
    throw InputError("the interaction law fits 6 parameters (E, A, B, alpha, beta, gamma) but only " +
                     std::to_string(distinct) + " distinct (N, D) are left; give at least 6");
}

DescentResult<6> descend(const std::vector<LogRun>& data, const InteractionPoint& start, const InteractionOptions& o) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const InteractionPoint lower{-kInf, -kInf, -kInf, -kInf, -kInf, o.min_log_gamma};
  const InteractionPoint upper{kInf, kInf, kInf, kInf, kInf, o.max_log_gamma};
  InteractionPoint x0 = start;
  x0[kLogGamma] = std::clamp(x0[kLogGamma], o.min_log_gamma, o.max_log_gamma);
  const auto f = [&](const double* x, double* grad) { return objective(x, data, o.huber_delta, grad); };
  return lbfgs_descent(f, x0, o.rules, &lower, &upper);
}

}  // namespace

void InteractionOptions::validate() const {
  if (!(huber_delta > 0) || !std::isfinite(huber_delta))
    throw FieldError("huber_delta", std::to_string(huber_delta) + " must be a positive number");
  if (grid.size() == 0) throw FieldError("grid", "no starting points");
  if (gammas.empty()) throw FieldError("gammas", "no starting values of gamma");
  for (double g : gammas)
    if (!(g > 0) || !std::isfinite(g)) throw FieldError("gammas", "every starting gamma must be a positive number");
  if (!(min_log_gamma < max_log_gamma)) throw FieldError("min_log_gamma", "must be below max_log_gamma");
  rules.validate();
  if (threads < 0) throw FieldError("threads", "must be 0 (default) or more");
}

double interaction_log_loss(const InteractionPoint& x, double params, double tokens) {
  const double s = log_add(x[kA] - x[kAlpha] * std::log(params), x[kB] - x[kBeta] * std::log(tokens));
  return log_add(x[kE], std::exp(x[kLogGamma]) * s);
}

double interaction_objective(const InteractionPoint& x, const std::vector<Run>& runs, double huber_delta,
                             InteractionPoint* grad) {
  return objective(x.data(), log_runs(runs), huber_delta, grad ? grad->data() : nullptr);
}

InteractionPoint interaction_point(const LawPoint& c) { return {c[kA], c[kB], c[kE], c[kAlpha], c[kBeta], 0.0}; }

InteractionResult fit_interaction(std::vector<Run> runs, const InteractionOptions& o,
                                  const std::vector<InteractionPoint>& extra_starts) {
  o.validate();
  check_runs(runs);
  sort_canonically(&runs);
  const std::vector<LogRun> data = log_runs(runs);
  std::vector<InteractionPoint> starts;
  for (const LawPoint& p : o.grid.points())
    for (double g0 : o.gammas)
      starts.push_back({p[kA] / g0, p[kB] / g0, p[kE], p[kAlpha] / g0, p[kBeta] / g0, std::log(g0)});
  starts.insert(starts.end(), extra_starts.begin(), extra_starts.end());
  const auto results =
      descend_from_all(starts, o.threads, [&](const InteractionPoint& start) { return descend(data, start, o); });
  InteractionResult r = summarise(results[best_start(results)], runs.size());
  r.starts = starts.size();
  for (const auto& s : results) {
    r.evaluations += s.evaluations;
    r.starts_failed += s.failed;
  }
  return r;
}

InteractionResult fit_interaction_from(std::vector<Run> runs, const InteractionPoint& start,
                                       const InteractionOptions& o) {
  o.validate();
  check_runs(runs);
  sort_canonically(&runs);
  const DescentResult<6> d = descend(log_runs(runs), start, o);
  InteractionResult r = summarise(d, runs.size());
  r.starts = 1;
  r.starts_failed = d.failed;
  r.evaluations = d.evaluations;
  return r;
}

}  // namespace isoflop::fit
