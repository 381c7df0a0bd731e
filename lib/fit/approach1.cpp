// Approach 1: the minimum over training curves at each compute, then power laws through it.
#include "fit/approach1.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "fit/approach2.hpp"

namespace isoflop::fit {
namespace {

struct Curve {
  double params = 0;
  std::vector<double> log_c, loss;  // increasing compute
};

}  // namespace

void Approach1Options::validate() const {
  if (points < 2 || points > 1000000) throw FieldError("a1_points", "must be from 2 to 1,000,000");
}

Approach1Result fit_approach1(const std::vector<CurvePoint>& points, const Approach1Options& o) {
  o.validate();
  std::map<std::string, std::vector<CurvePoint>> by_run;
  for (const auto& p : points) by_run[p.run_id].push_back(p);
  std::vector<Curve> curves;
  double lo = INFINITY, hi = -INFINITY;
  for (auto& [id, pts] : by_run) {
    std::sort(pts.begin(), pts.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.tokens < b.tokens; });
    Curve c;
    c.params = pts.front().params;
    for (const auto& p : pts) {
      const double lc = std::log(6 * p.params * p.tokens);
      if (!c.log_c.empty() && lc <= c.log_c.back()) continue;  // repeated token counts: keep the first
      c.log_c.push_back(lc);
      c.loss.push_back(p.loss);
    }
    if (c.log_c.size() < 2)
      throw InputError("curves: run '" + id + "' (line " + std::to_string(pts.front().line) +
                       ") has fewer than 2 distinct token counts; a training curve needs at least 2 points");
    lo = std::min(lo, c.log_c.front());
    hi = std::max(hi, c.log_c.back());
    curves.push_back(std::move(c));
  }
  Approach1Result r;
  r.curves = curves.size();
  double n_smallest = INFINITY, n_largest = 0;
  for (const auto& c : curves) n_smallest = std::min(n_smallest, c.params), n_largest = std::max(n_largest, c.params);
  std::set<double> sizes;
  for (int k = 0; k < o.points; ++k) {
    const double lc = lo + (hi - lo) * k / (o.points - 1);
    const Curve* best = nullptr;
    double best_loss = INFINITY;
    for (const auto& c : curves) {
      if (lc < c.log_c.front() || lc > c.log_c.back()) continue;
      const size_t j = std::min<size_t>(
          std::upper_bound(c.log_c.begin(), c.log_c.end(), lc) - c.log_c.begin(), c.log_c.size() - 1);
      const size_t i = j == 0 ? 0 : j - 1;
      const double t = j == i ? 0 : (lc - c.log_c[i]) / (c.log_c[j] - c.log_c[i]);
      const double loss = c.loss[i] + t * (c.loss[j] - c.loss[i]);
      if (loss < best_loss || (loss == best_loss && best && c.params < best->params)) best_loss = loss, best = &c;
    }
    if (!best) continue;  // a gap in compute no run covers
    // Where the smallest or largest size wins, the optimum may lie beyond the sizes trained: skip.
    if (best->params == n_smallest || best->params == n_largest) continue;
    const double flops = std::exp(lc);
    r.envelope.push_back({flops, best->params, flops / (6 * best->params), best_loss});
    sizes.insert(best->params);
  }
  r.sizes_on_envelope = sizes.size();
  if (sizes.size() < 2)
    throw InputError("curves: only " + std::to_string(sizes.size()) +
                     " model sizes other than the smallest and the largest reach the lowest loss at some compute; Approach 1 needs at least 2");
  fit_optimal_power_laws(r, r.envelope, [](const EnvelopePoint& e) { return std::tuple{e.flops, e.params, e.tokens}; });
  return r;
}

}  // namespace isoflop::fit
