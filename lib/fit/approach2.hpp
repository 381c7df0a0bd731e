// Chinchilla Approach 2: IsoFLOP profiles. Runs are grouped into compute budgets, a parabola in log N
// is fitted per budget, its minimum is N_opt(C), and N_opt = k·C^a, D_opt = k′·C^b are fitted in log
// space (Hoffmann et al. 2022, §3.2).
#pragma once

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "fit/runs.hpp"

namespace isoflop::fit {

struct Approach2Options {
  double budget_tolerance = 0.05;   // runs whose FLOPs are within this relative spread form one budget
  std::string file = "runs";        // for messages: the runs file …
  std::string flops_column = "flops";  // … and the column budgets come from
  // Names a run in messages (a sweep's run id), where runs come from no file; empty: file, column and line.
  std::function<std::string(const Run&)> run_name;
  // Leave out a budget whose losses do not curve upwards (no minimum), saying so in the result, instead of
  // failing the fit; the remaining budgets must still be at least 2.
  bool drop_budgets_without_minimum = false;

  void validate() const;
};

struct BudgetFit {
  double flops = 0;                 // the budget C (geometric mean of its runs' FLOPs)
  size_t runs = 0;
  // loss ≈ c0 + c1·x + c2·x² with x = ln N − x_center
  double c0 = 0, c1 = 0, c2 = 0, x_center = 0;
  double params_opt = 0, tokens_opt = 0, loss_opt = 0;  // the parabola's minimum; D_opt = C/(6·N_opt)
  double min_params = 0, max_params = 0;               // the sizes tried
  bool extrapolated = false;        // the minimum lies outside the sizes tried
  double loss_at(double params) const;  // the fitted parabola
  bool operator==(const BudgetFit&) const = default;
};

struct Approach2Result {
  double a = 0, b = 0;              // N_opt ∝ C^a, D_opt ∝ C^b
  double k_params = 0, k_tokens = 0;  // N_opt = k_params·C^a, D_opt = k_tokens·C^b
  std::vector<BudgetFit> budgets;   // in increasing compute
  std::vector<std::string> dropped;  // budgets left out (drop_budgets_without_minimum), each with why
  bool operator==(const Approach2Result&) const = default;
};

// Groups runs into budgets: sorted by FLOPs, a run joins the current budget while its FLOPs are within
// (1 + tolerance) of the budget's first run.
std::vector<std::vector<Run>> group_budgets(std::vector<Run> runs, double tolerance);

// Throws InputError naming the budget (by file:line and the FLOPs column, or by its runs' run_name) for a budget with fewer than 3 runs (or 3 distinct sizes) or a profile without a minimum (losses not
// curving upwards), and when fewer than 2 budgets remain.
Approach2Result fit_approach2(std::vector<Run> runs, const Approach2Options& options);

// Least-squares fit of ln y = ln k + p·ln x; returns {k, p}.
std::pair<double, double> fit_power_law(const std::vector<double>& x, const std::vector<double>& y);

// Approaches 1 and 2 end alike: N_opt = k_params·C^a and D_opt = k_tokens·C^b fitted (fit_power_law) to the
// (flops, params, tokens) that `project` gives for each of `points`, into `result`'s a, b, k_params, k_tokens.
template <class Result, class Points, class Project>
void fit_optimal_power_laws(Result& result, const Points& points, Project project) {
  std::vector<double> cs, ns, ds;
  for (const auto& point : points) {
    const auto [c, n, d] = project(point);
    cs.push_back(c), ns.push_back(n), ds.push_back(d);
  }
  std::tie(result.k_params, result.a) = fit_power_law(cs, ns);
  std::tie(result.k_tokens, result.b) = fit_power_law(cs, ds);
}

}  // namespace isoflop::fit
