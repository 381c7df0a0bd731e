// Approach 2: budget grouping, per-budget parabolas in log N, and the power laws through their minima.
#include "fit/approach2.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "core/error.hpp"
#include "units/format.hpp"

namespace isoflop::fit {
namespace {

// Solves the 3×3 normal equations of y ≈ c0 + c1·x + c2·x² by Cramer's rule (x is centred, so the
// system is well conditioned for the ranges of ln N that occur).
bool fit_parabola(const std::vector<double>& x, const std::vector<double>& y, double c[3]) {
  double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};
  for (size_t i = 0; i < x.size(); ++i) {
    double p = 1;
    for (int k = 0; k < 5; ++k) {
      s[k] += p;
      if (k < 3) t[k] += p * y[i];
      p *= x[i];
    }
  }
  const double m[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}};
  auto det = [](const double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  const double d = det(m);
  if (!(std::fabs(d) > 0)) return false;
  for (int k = 0; k < 3; ++k) {
    double mk[3][3];
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) mk[i][j] = j == k ? t[i] : m[i][j];
    c[k] = det(mk) / d;
  }
  return true;
}

// A budget in messages, in its input's words: by its runs' names (a sweep), else by file, FLOPs column and lines
// (a CSV table).
std::string describe_budget(const std::vector<Run>& group, double flops, const Approach2Options& o) {
  std::string names;
  for (const auto& r : group) names += (names.empty() ? "" : ", ") + (o.run_name ? o.run_name(r) : std::to_string(r.line));
  const std::string budget = "the budget of " + units::format_scientific(flops) + " FLOPs";
  if (o.run_name) return budget + " (runs " + names + ")";
  return o.file + ":" + std::to_string(group.front().line) + ": column '" + o.flops_column + "': " + budget + " (lines " +
         names + ")";
}

}  // namespace

void Approach2Options::validate() const {
  if (!(budget_tolerance >= 0 && budget_tolerance < 1))
    throw FieldError("budget_tolerance", "must be in [0, 1), a relative spread of FLOPs within one budget");
}

double BudgetFit::loss_at(double params) const {
  const double x = std::log(params) - x_center;
  return c0 + c1 * x + c2 * x * x;
}

std::vector<std::vector<Run>> group_budgets(std::vector<Run> runs, double tolerance) {
  sort_canonically(&runs);
  std::stable_sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.flops < b.flops; });
  std::vector<std::vector<Run>> groups;
  for (const auto& r : runs) {
    if (groups.empty() || r.flops > groups.back().front().flops * (1 + tolerance) * (1 + 1e-12)) groups.emplace_back();
    groups.back().push_back(r);
  }
  return groups;
}

std::pair<double, double> fit_power_law(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double lx = std::log(x[i]), ly = std::log(y[i]);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
  }
  const double p = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  return {std::exp((sy - p * sx) / n), p};
}

Approach2Result fit_approach2(std::vector<Run> runs, const Approach2Options& o) {
  o.validate();
  Approach2Result result;
  for (const auto& group : group_budgets(std::move(runs), o.budget_tolerance)) {
    double log_c = 0;
    for (const auto& r : group) log_c += std::log(r.flops);
    const double c = std::exp(log_c / static_cast<double>(group.size()));
    const std::string where = describe_budget(group, c, o);
    std::set<double> sizes;
    for (const auto& r : group) sizes.insert(r.params);
    if (group.size() < 3 || sizes.size() < 3)
      throw InputError(where + " has " + std::to_string(sizes.size()) +
                       " distinct model sizes; Approach 2 fits a parabola per budget and needs at least 3 (or widen "
                       "the budget tolerance, or leave the budget out with a minimum or maximum FLOPs)");
    BudgetFit b;
    b.flops = c;
    b.runs = group.size();
    b.min_params = *sizes.begin();
    b.max_params = *sizes.rbegin();
    std::vector<double> x, y;
    for (const auto& r : group) b.x_center += std::log(r.params) / static_cast<double>(group.size());
    for (const auto& r : group) {
      x.push_back(std::log(r.params) - b.x_center);
      y.push_back(r.loss);
    }
    double coef[3];
    if (!fit_parabola(x, y, coef) || !(coef[2] > 0)) {
      const std::string why = where + ": the losses do not curve upwards in log N, so the profile has no minimum";
      if (!o.drop_budgets_without_minimum) throw InputError(why);
      result.dropped.push_back(why);
      continue;
    }
    b.c0 = coef[0], b.c1 = coef[1], b.c2 = coef[2];
    const double x_opt = -b.c1 / (2 * b.c2);
    b.params_opt = std::exp(x_opt + b.x_center);
    b.tokens_opt = c / (6 * b.params_opt);  // C ≈ 6·N·D (Hoffmann et al. 2022, App. F)
    b.loss_opt = b.loss_at(b.params_opt);
    b.extrapolated = b.params_opt < b.min_params || b.params_opt > b.max_params;
    result.budgets.push_back(b);
  }
  if (result.budgets.size() < 2)
    throw InputError(o.file + ": Approach 2 needs at least 2 compute budgets to fit N_opt ∝ C^a; found " +
                     std::to_string(result.budgets.size()) + " (budgets group runs with FLOPs within budget_tolerance)");
  fit_optimal_power_laws(result, result.budgets,
                         [](const BudgetFit& b) { return std::tuple{b.flops, b.params_opt, b.tokens_opt}; });
  return result;
}

}  // namespace isoflop::fit
