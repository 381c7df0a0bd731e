// Fitting a validation sweep with lib/fit and comparing the fits with the plan's law and the source's floor.
#include "validate/report.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include <omp.h>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "fit/bootstrap.hpp"
#include "units/format.hpp"
#include "units/quantity.hpp"
#include "validate/report_speed.hpp"

namespace isoflop::validate {

double PlanReference::params_at(double flops) const {
  const auto it = law_params_opt.find(flops);
  return it != law_params_opt.end() ? it->second : params_opt * std::pow(flops / budget_flops, a);
}

double PlanReference::tokens_per_param_at(double flops) const {
  const double n = params_at(flops);
  return flops / (6 * n * n);
}

Tolerances parse_tolerances(const std::string& text, const std::string& field) {
  Tolerances t;
  const std::vector<std::pair<std::string, double*>> names = {{"a", &t.exponent_a},
                                                             {"tokens_per_param", &t.tokens_per_param},
                                                             {"params", &t.params_at_plan},
                                                             {"floor", &t.floor},
                                                             {"speed", &t.speed}};
  std::vector<std::string> accepted;
  for (const auto& n : names) accepted.push_back(n.first);
  size_t start = 0;
  while (!text.empty() && start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const size_t eq = item.find('=');
    const std::string name = item.substr(0, eq);
    const auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
    if (eq == std::string::npos || it == names.end())
      throw FieldError(field, "'" + item + "' is not NAME=VALUE with NAME one of " + join(accepted) +
                                  did_you_mean(name, accepted));
    try {
      *it->second = units::parse_number(item.substr(eq + 1), name, units::Sign::kNonNegative);
    } catch (const InputError& e) {
      throw FieldError(field, e.what());
    }
  }
  return t;
}

Comparison compare(std::string name, std::string what, double expected, double measured, Measure measure,
                   double tolerance) {
  Comparison c{std::move(name), std::move(what), expected, measured, measure, 0, tolerance, false};
  switch (measure) {
    case Measure::kAbsolute: c.distance = std::fabs(measured - expected); break;
    case Measure::kRelative: c.distance = std::fabs(measured / expected - 1); break;
    case Measure::kFactor: c.distance = std::max(measured / expected, expected / measured) - 1; break;
  }
  c.within = std::isfinite(c.distance) && c.distance <= tolerance;
  return c;
}

std::string outside_side(const fit::BudgetFit& b) {
  return b.params_opt < b.min_params ? "below the smallest size" : "above the largest size";
}

namespace {

// Approach 2 over the budgets whose parabola has its minimum inside the sizes they tried. A vertex outside them
// is the parabola extrapolated (losses that rise across every size put it at a fraction of a parameter), not a
// measured optimum (Hoffmann et al. 2022 Fig. 3 centre each budget's sizes on its minimum): such a budget keeps
// its parabola in the result but is left out of N_opt ∝ C^a, and `left_out` says why.
fit::Approach2Result fit_inside(const std::vector<fit::Run>& runs, const fit::Approach2Options& options,
                                std::vector<std::string>* left_out) {
  fit::Approach2Result r = fit::fit_approach2(runs, options);
  std::vector<const fit::BudgetFit*> inside;
  for (const auto& b : r.budgets) {
    if (!b.extrapolated) {
      inside.push_back(&b);
    } else if (left_out) {
      left_out->push_back("the budget of " + units::format_scientific(b.flops) + " FLOPs: its parabola's minimum lies " +
                          outside_side(b) + " tried (" + units::format_count(b.min_params) + " - " +
                          units::format_count(b.max_params) + "), an extrapolation, not a measured optimum");
    }
  }
  if (inside.size() < 2)
    throw InputError(options.file + ": " + std::to_string(inside.size()) + " of " + std::to_string(r.budgets.size()) +
                     " budgets have their minimum inside the sizes they tried; N_opt ∝ C^a needs 2");
  if (inside.size() < r.budgets.size())
    fit::fit_optimal_power_laws(r, inside, [](const fit::BudgetFit* b) {
      return std::tuple{b->flops, b->params_opt, b->tokens_opt};
    });
  return r;
}

// Runs per budget, finished ones only; budgets with fewer than 3 distinct sizes cannot carry a parabola.
std::vector<fit::Run> approach2_runs(const std::vector<ReportRun>& runs, ValidationReport* report) {
  std::map<int, std::vector<const ReportRun*>> by_budget;
  for (const auto& r : runs)
    if (r.finished) by_budget[r.budget].push_back(&r);
  std::vector<fit::Run> out;
  for (const auto& [budget, members] : by_budget) {
    std::set<double> sizes;
    for (const auto* r : members) sizes.insert(r->params);
    if (sizes.size() < 3) {
      report->failures.push_back("budget " + std::to_string(budget) + ": only " + std::to_string(sizes.size()) +
                                 " finished size(s), Approach 2 needs 3; its runs are left out of Approach 2");
      continue;
    }
    // The budget's nominal C groups its runs exactly (batch rounding moves 6·N·D by a fraction of a percent).
    // A run's "line" is its place in `runs`, from 1, by which Approach2Options::run_name finds its id.
    for (const auto* r : members)
      out.push_back({r->params, r->tokens, r->budget_flops, r->loss, static_cast<int>(r - runs.data()) + 1});
  }
  return out;
}

// The q-quantile of all resamples when `failed` of them have no value and count as lying outside the interval, half
// below it and half above: the successes' quantile at the level that leaves failed/2 of each tail to the failed
// ones, so a 2.5–97.5 % interval holds 95 % of all resamples. NaN when a tail is smaller than failed/2.
double quantile_counting_failed(const std::vector<double>& values, int failed, double q) {
  const double s = static_cast<double>(values.size()), level = (q * (s + failed) - 0.5 * failed) / s;
  return level >= 0 && level <= 1 ? fit::quantile(values, level) : NAN;
}

using Budgets = std::map<double, std::vector<fit::Run>>;  // runs by budget (C)

Budgets by_budget(const std::vector<fit::Run>& runs) {
  Budgets budgets;
  for (const auto& r : runs) budgets[r.flops].push_back(r);
  return budgets;
}

// Resample k of a bootstrap that keeps the sweep's design: within every budget, as many runs as it has, drawn with
// replacement from k's own stream (seeded by options.seed and k). Resampling all runs together would leave
// budgets with one or two sizes.
void draw_within_budgets(const Budgets& budgets, std::uint64_t seed, int k, std::vector<std::vector<fit::Run>>* drawn) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(k));
  drawn->resize(budgets.size());
  size_t j = 0;
  for (const auto& [flops, members] : budgets) {
    std::uniform_int_distribution<size_t> pick(0, members.size() - 1);
    auto& out = (*drawn)[j++];
    out.clear();
    for (size_t i = 0; i < members.size(); ++i) out.push_back(members[pick(rng)]);
  }
}

// The 2.5, 10, 50, 90, 97.5 % points of `values`, counting `failed` resamples as outside; none when more than
// 5 % failed.
std::optional<fit::Interval> interval_counting_failed(const std::vector<double>& values, int failed) {
  if (values.empty() || std::isnan(quantile_counting_failed(values, failed, 0.025))) return std::nullopt;
  fit::Interval i;
  double* ends[] = {&i.p2_5, &i.p10, &i.p50, &i.p90, &i.p97_5};
  const double levels[] = {0.025, 0.1, 0.5, 0.9, 0.975};
  for (int e = 0; e < 5; ++e) *ends[e] = quantile_counting_failed(values, failed, levels[e]);
  return i;
}

// Each quantity's interval under its name; none at all when the first has none (they share their resamples).
void set_intervals(const std::vector<std::pair<const char*, const std::vector<double>*>>& quantities, int failed,
                   std::map<std::string, fit::Interval>* out) {
  if (!interval_counting_failed(*quantities.front().second, failed)) return;
  for (const auto& [name, values] : quantities) (*out)[name] = *interval_counting_failed(*values, failed);
}

// One bootstrap over both approaches, resample by resample, so that each resample's two estimates of a can be
// compared (paired: their difference has its own interval). Resample k draws, within every budget with a
// finished run, as many runs as it has (draw_within_budgets). A bootstrap replicates the whole estimator (Efron &
// Tibshirani 1993, §6.2: the statistic s(x*) computed as s(x)):
//  - Approach 2 (when fitted) takes the drawn runs of the budgets its fit was given, each with at least 3 sizes
//    drawn, and refits by the point estimate's own rules (fit_inside: budgets that curve downwards or put their
//    minimum outside are left out of that resample's a, as the fit leaves them out). It fails only when fewer than
//    2 budgets keep a minimum inside. Counting the resamples that lose a budget as failed and taking percentiles
//    of the rest would keep only those in which every budget curved well: an interval narrower than the fit's
//    uncertainty.
//  - Approach 3 (when fitted) takes every drawn run and refits by one descent from the full-data optimum to tight
//    tolerances: from there the default stopping rules would stop almost at once and give implausibly narrow
//    intervals (lib/fit/bootstrap.hpp). It fails when the resample holds fewer distinct (N, D) than its 5
//    parameters or the descent fails.
// A failed resample counts as outside each interval it has no value for (quantile_counting_failed).
// One resample's estimates, each empty where its fit failed.
struct ResampleFits {
  std::optional<fit::Approach2Result> two;
  std::optional<fit::Approach3Result> three;
  std::optional<fit::InteractionResult> interaction;
  bool same_choice = false;  // its own held-out comparison chose the full data's form
};

void bootstrap_fits(const std::vector<fit::Run>& all, const std::set<double>& approach2_budgets,
                    const fit::Approach2Options& a2, const ReportOptions& options, ValidationReport* report) {
  const Budgets budgets = by_budget(all);
  const fit::Approach3Options a3 = fit::refit_options(fit::Approach3Options{}, fit::BootstrapOptions{});
  const fit::InteractionOptions ia = fit::refit_options(fit::InteractionOptions{}, fit::BootstrapOptions{});
  const bool two = report->approach2.has_value(), three = report->approach3.has_value();
  const bool inter = report->interaction.has_value();
  // The resamples are independent (each draws from its own stream), so they are fitted in parallel and then
  // gathered in their order: the intervals do not depend on the number of threads.
  const int k_total = options.bootstrap_resamples;
  std::vector<ResampleFits> fits(static_cast<size_t>(k_total));
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
  for (int k = 0; k < k_total; ++k) {
    ResampleFits& out = fits[static_cast<size_t>(k)];
    std::vector<std::vector<fit::Run>> drawn;
    draw_within_budgets(budgets, options.seed, k, &drawn);
    std::vector<fit::Run> sample2, sample3;
    for (const auto& budget : drawn) {
      sample3.insert(sample3.end(), budget.begin(), budget.end());
      if (!approach2_budgets.count(budget.front().flops)) continue;
      std::set<double> sizes;
      for (const auto& r : budget) sizes.insert(r.params);
      if (sizes.size() >= 3) sample2.insert(sample2.end(), budget.begin(), budget.end());  // as approach2_runs
    }
    if (two) {
      try {
        out.two = fit_inside(sample2, a2, nullptr);
      } catch (const InputError&) {
        // fewer than 2 budgets kept a minimum inside the sizes they drew
      }
    }
    if (three && fit::distinct_points(sample3) >= 5) {
      out.three = fit::refit_approach3(sample3, report->approach3->x, a3);
      if (out.three && !std::isfinite(out.three->a)) out.three.reset();
    }
    if (inter) {
      out.interaction = fit::refit_interaction(sample3, report->interaction->law.x, ia);
      try {
        out.same_choice = fit::choose_form(sample3, report->approach3->x, report->interaction->law.x,
                                           options.form_choice)
                              .chosen == report->interaction->choice.chosen;
      } catch (const InputError&) {
      }
    }
  }

  std::vector<double> a2_a, a2_b, a3_a, a3_e, a3_alpha, a3_beta, gap;
  std::vector<double> ia_a, ia_e, ia_alpha, ia_beta, ia_gamma, ia_gap;
  int failed2 = 0, failed3 = 0, failed_gap = 0, failed_i = 0, failed_i_gap = 0, same_choice = 0;
  for (const ResampleFits& f : fits) {
    if (two) {
      if (f.two)
        a2_a.push_back(f.two->a), a2_b.push_back(f.two->b);
      else
        ++failed2;
    }
    if (three) {
      if (f.three)
        a3_a.push_back(f.three->a), a3_e.push_back(f.three->E), a3_alpha.push_back(f.three->alpha),
            a3_beta.push_back(f.three->beta);
      else
        ++failed3;
    }
    if (inter) {
      same_choice += f.same_choice;
      if (f.interaction)
        ia_a.push_back(f.interaction->a), ia_e.push_back(f.interaction->E), ia_alpha.push_back(f.interaction->alpha),
            ia_beta.push_back(f.interaction->beta), ia_gamma.push_back(f.interaction->gamma);
      else
        ++failed_i;
    }
    if (two && three) {
      if (f.two && f.three)
        gap.push_back(f.two->a - f.three->a);
      else
        ++failed_gap;
    }
    if (two && inter) {
      if (f.two && f.interaction)
        ia_gap.push_back(f.two->a - f.interaction->a);
      else
        ++failed_i_gap;
    }
  }
  report->bootstrap_failed = failed2;
  report->approach3_bootstrap_failed = failed3;
  // More than 5 % failed: no interval holds 95 % of the resamples, and none is given.
  if (two) set_intervals({{"a", &a2_a}, {"b", &a2_b}}, failed2, &report->approach2_intervals);
  if (three)
    set_intervals({{"a", &a3_a}, {"E", &a3_e}, {"alpha", &a3_alpha}, {"beta", &a3_beta}}, failed3,
                  &report->approach3_intervals);
  if (two && three) report->a_difference = interval_counting_failed(gap, failed_gap);
  if (inter) {
    InteractionFit& f = *report->interaction;
    f.bootstrap_failed = failed_i;
    f.choice_same_in_resamples = same_choice;  // only set when resamples were drawn
    set_intervals({{"a", &ia_a}, {"E", &ia_e}, {"alpha", &ia_alpha}, {"beta", &ia_beta}, {"gamma", &ia_gamma}},
                  failed_i, &f.intervals);
    if (two) f.a_difference = interval_counting_failed(ia_gap, failed_i_gap);
  }
}

// The interaction law beside Chinchilla's: fitted from the coarse grid at several γ and from Chinchilla's optimum,
// and kept with the held-out comparison of the two forms. Absent (with the reason) when there are too few runs or
// budgets to choose between them.
void fit_interaction(const std::vector<fit::Run>& all, const ReportOptions& options, ValidationReport* report) {
  if (static_cast<int>(all.size()) < options.min_runs_interaction) {
    report->interaction_note = std::to_string(all.size()) + " finished runs; the interaction law (6 parameters) needs " +
                               std::to_string(options.min_runs_interaction);
    return;
  }
  InteractionFit f;
  try {
    f.law = fit::fit_interaction(all, fit::InteractionOptions{}, {fit::interaction_point(report->approach3->x)});
    f.choice = fit::choose_form(all, report->approach3->x, f.law.x, options.form_choice);
  } catch (const InputError& e) {
    report->interaction_note = e.what();
    return;
  }
  report->interaction = f;
}

void fit_and_bootstrap(const std::vector<ReportRun>& runs, const ReportOptions& options, ValidationReport* report) {
  // A run's "line" is its place in `runs`, from 1, by which Approach2Options::run_name finds its id.
  std::vector<fit::Run> all;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].finished)
      all.push_back({runs[i].params, runs[i].tokens, runs[i].budget_flops, runs[i].loss, static_cast<int>(i) + 1});
  report->bootstrap_resamples = options.bootstrap_resamples;
  fit::Approach2Options a2;
  a2.file = "sweep.json runs";
  a2.run_name = [&runs](const fit::Run& r) { return runs[static_cast<size_t>(r.line) - 1].id; };  // b0-s0 …
  a2.drop_budgets_without_minimum = true;  // a flat or concave budget is reported, the others still fit
  const std::vector<fit::Run> a2_runs = approach2_runs(runs, report);
  std::vector<std::string> outside;
  try {
    report->approach2 = fit_inside(a2_runs, a2, &outside);
  } catch (const InputError& e) {
    report->approach2_error = e.what();
  }
  if (report->approach2) {
    for (const auto& why : report->approach2->dropped) report->failures.push_back("left out of Approach 2: " + why);
    for (const auto& why : outside) report->failures.push_back("left out of Approach 2: " + why);
    for (const auto& b : report->approach2->budgets) {
      if (!b.extrapolated) continue;
      // The budget index is the one whose nominal C this fitted budget carries.
      for (const auto& r : runs)
        if (std::fabs(std::log(r.budget_flops / b.flops)) < 1e-9) {
          report->budgets_outside.push_back(r.budget);
          break;
        }
    }
  }
  if (static_cast<int>(all.size()) < options.min_runs_approach3) {
    report->approach3_note = std::to_string(all.size()) + " finished runs; Approach 3 (5 parameters) needs " +
                             std::to_string(options.min_runs_approach3);
  } else {
    fit::Approach3Options a3;
    a3.grid = options.grid;
    const fit::Approach3Result fitted = fit::fit_approach3(all, a3);
    if (fitted.starts_failed >= fitted.starts || !std::isfinite(fitted.objective)) {
      // No start converged: the "best" point is a start's, not a fit, and is not reported as one.
      report->approach3_note = "every one of the " + std::to_string(fitted.starts) +
                               " starts failed; Approach 3 could not be fitted to these runs";
    } else if (const auto problem = fit::approach3_exponent_problem(fitted.alpha, fitted.beta)) {
      report->approach3_note = "Approach 3 fits no scaling law to these runs: " + *problem;
    } else {
      report->approach3 = fitted;
      fit_interaction(all, options, report);
    }
  }
  std::set<double> approach2_budgets;
  for (const auto& r : a2_runs) approach2_budgets.insert(r.flops);
  if (options.bootstrap_resamples > 0 && (report->approach2 || report->approach3))
    bootstrap_fits(all, approach2_budgets, a2, options, report);
}

void compare_law(const PlanReference& plan, const Tolerances& tol, ValidationReport* report) {
  const auto& a2 = *report->approach2;
  report->comparisons.push_back(compare("exponent_a", "exponent a of N_opt ∝ C^a (Approach 2 vs " + plan.law + ")",
                                        plan.a, a2.a, Measure::kAbsolute, tol.exponent_a));
  double c = 0;  // the largest budget the exponent was fitted to
  for (const auto& b : a2.budgets)
    if (!b.extrapolated) c = b.flops;
  const double n = a2.k_params * std::pow(c, a2.a), d = a2.k_tokens * std::pow(c, a2.b);
  report->comparisons.push_back(compare("tokens_per_param", "tokens per parameter at the optimum of the largest budget",
                                        plan.tokens_per_param_at(c), d / n, Measure::kFactor, tol.tokens_per_param));
  report->comparisons.push_back(compare("params_at_plan_budget",
                                        "N_opt at the plan's budget: the sweep's law extrapolated vs the plan",
                                        plan.params_opt, a2.k_params * std::pow(plan.budget_flops, a2.a),
                                        Measure::kFactor, tol.params_at_plan));
}

void compare_floor(const std::vector<ReportRun>& runs, const Tolerances& tol, ValidationReport* report) {
  double sum = 0, se = 0;
  int n = 0;
  for (const auto& r : runs) {
    if (!r.finished || !r.floor) continue;
    sum += *r.floor;
    se += r.floor_se.value_or(0);
    ++n;
  }
  if (n == 0) return;
  // The runs of one source may evaluate the same validation tokens, so their estimates are not independent: the
  // mean floor keeps the runs' typical standard error rather than dividing it by √n.
  report->floor = sum / n;
  report->floor_se = se / n;
  if (!report->approach3) return;
  report->comparisons.push_back(compare("floor", "fitted E (Approach 3) vs the source's exact floor", *report->floor,
                                        report->approach3->E, Measure::kRelative, tol.floor));
  // The interaction form's E is judged as well, beside (not in place of) the additive law's, when the held-out
  // budgets chose it.
  if (report->chosen_form() == fit::ParametricForm::kInteraction)
    report->comparisons.push_back(compare("floor_interaction",
                                          "fitted E (Approach 3's interaction form, which the held-out budgets chose) vs "
                                          "the source's exact floor",
                                          *report->floor, report->interaction->law.E, Measure::kRelative, tol.floor));
}

void compare_speed(const std::vector<ReportRun>& runs, const std::map<std::string, catalog::Accelerator>& accelerators,
                   const Tolerances& tol, ValidationReport* report) {
  const SpeedRow* worst = nullptr;
  for (const auto& r : runs) {
    if (!r.finished || !(r.tokens_per_s > 0)) continue;  // a run that timed no step has no speed to compare
    const auto it = accelerators.find(r.accelerator);
    if (it == accelerators.end()) continue;
    report->speed.push_back(predict_speed(r, it->second));
  }
  for (const auto& s : report->speed)
    if (!worst || std::fabs(s.error) > std::fabs(worst->error)) worst = &s;
  if (!worst) return;
  // Expected is the model's tokens/s, measured the run's; the error is relative to the measurement.
  Comparison c = compare("speed", "predicted vs measured tokens/s, worst of " + std::to_string(report->speed.size()) +
                                      " runs (" + worst->id + ")",
                         worst->predicted_tokens_per_s, worst->measured_tokens_per_s, Measure::kRelative, tol.speed);
  c.distance = std::fabs(worst->error);
  c.within = std::isfinite(c.distance) && c.distance <= tol.speed;
  report->comparisons.push_back(c);
}

}  // namespace

fit::ParametricForm ValidationReport::chosen_form() const {
  return interaction ? interaction->choice.chosen : fit::ParametricForm::kAdditive;
}

ValidationReport build_report(const std::vector<ReportRun>& runs, const PlanReference& plan,
                              const std::map<std::string, catalog::Accelerator>& accelerators,
                              const ReportOptions& options) {
  ValidationReport report;
  report.runs = static_cast<int>(runs.size());
  for (const auto& r : runs) {
    if (r.finished) {
      ++report.finished;
    } else {
      ++report.failed;
      report.failures.push_back(r.id + ": " + r.failure);
    }
  }
  fit_and_bootstrap(runs, options, &report);
  if (report.approach2) compare_law(plan, options.tolerances, &report);
  compare_floor(runs, options.tolerances, &report);
  compare_speed(runs, accelerators, options.tolerances, &report);
  report.passed = report.failing_conditions().empty();
  return report;
}

std::vector<std::string> ValidationReport::failing_conditions() const {
  std::vector<std::string> out;
  if (!approach2) out.push_back("Approach 2 not fitted");
  if (failed > 0) out.push_back(std::to_string(failed) + (failed == 1 ? " run" : " runs") + " not finished");
  const auto outside =
      std::count_if(comparisons.begin(), comparisons.end(), [](const Comparison& c) { return !c.within; });
  if (outside > 0)
    out.push_back(std::to_string(outside) + (outside == 1 ? " comparison" : " comparisons") + " outside");
  return out;
}

}  // namespace isoflop::validate
