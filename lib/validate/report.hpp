// Judging a validation sweep: fit the runs of an IsoFLOP sweep (Approach 2 with bootstrap intervals and,
// with enough runs, Approach 3), compare what they say with the plan's law, the fitted floor with the
// source's exact floor, and each run's measured speed with the step-time model's prediction for its shape.
// Plain structs in and out: reading the sweep folder is lib/doc/validation_document's job.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/hardware.hpp"
#include "fit/approach2.hpp"
#include "fit/approach3.hpp"
#include "fit/bootstrap.hpp"
#include "fit/form_choice.hpp"
#include "fit/interaction.hpp"
#include "model/architecture.hpp"

namespace isoflop::validate {

// One run of the sweep, as designed and as it came out.
struct ReportRun {
  std::string id;               // the run's folder name
  int index = 0;                // its place in the sweep's runs, from 1 (messages)
  int budget = 0;               // index of its budget in the sweep
  double budget_flops = 0;      // the budget C the run belongs to (C = 6·N·D)
  bool finished = false;        // a result document with a validation loss
  std::string failure;          // why not, when not finished
  double params = 0;            // N: total parameters, tied head counted once
  double tokens = 0;            // D: training tokens processed
  double loss = 0;              // the last validation loss (nats/token)
  std::optional<double> floor;     // the source's exact loss floor on this run's validation split
  std::optional<double> floor_se;  // its standard error
  // Speed: what was measured, and what the step-time model needs to predict it.
  double tokens_per_s = 0;
  std::optional<double> mfu;
  double peak_flops = 0;        // the peak MFU is measured against (FLOP/s)
  std::string device;           // as the run reported it
  std::string accelerator;      // catalog id of the device ("" on the CPU)
  model::Architecture architecture;
  long long batch = 0;          // sequences per step
  bool operator==(const ReportRun&) const = default;
};

// What the plan promised: its law's allocation exponent and the optimum at its full budget.
struct PlanReference {
  std::string law;              // the law's name, for the table
  double a = 0;                 // N_opt ∝ C^a
  double budget_flops = 0;      // the plan's full budget C
  double params_opt = 0;        // the plan's N_opt at that budget
  std::map<double, double> law_params_opt;  // the law's own N_opt at the sweep's budgets (C → N)
  // N_opt(C) of the plan's law: its own value at a sweep budget, else C^a anchored at the full budget.
  double params_at(double flops) const;
  double tokens_per_param_at(double flops) const;  // D/N = C/(6·N²)
  bool operator==(const PlanReference&) const = default;
};

// How far each comparison may be off before the verdict fails.
struct Tolerances {
  double exponent_a = 0.1;          // |a_fit − a_plan| (absolute)
  double tokens_per_param = 1.0;    // D/N at the optimum: within a factor 1 + this of the plan's
  double params_at_plan = 1.0;      // N_opt extrapolated to the plan's budget: within a factor 1 + this
  double floor = 0.05;              // |E_fit / E_exact − 1|
  double speed = 0.25;              // |predicted / measured tokens/s − 1|, every run
  bool operator==(const Tolerances&) const = default;
};

// Parses "a=0.1,tokens_per_param=1,params=1,floor=0.05,speed=0.25" (names not given keep their default);
// throws FieldError(field, …) naming the unknown name or bad value.
Tolerances parse_tolerances(const std::string& text, const std::string& field = "tolerance");

// How a comparison measures its distance: a difference, a relative error, or a ratio in either direction.
enum class Measure { kAbsolute, kRelative, kFactor };

struct Comparison {
  std::string name;             // "exponent_a", "tokens_per_param", "params_at_plan_budget", "floor",
                                // "floor_interaction", "speed"
  std::string what;             // one line for the table
  double expected = 0;          // the plan's or the source's value
  double measured = 0;          // what the sweep says
  Measure measure = Measure::kAbsolute;
  double distance = 0;          // |m − e|, |m/e − 1|, or max(m/e, e/m) − 1
  double tolerance = 0;
  bool within = false;
  bool operator==(const Comparison&) const = default;
};

// One run's speed: measured against the step-time model on this device.
struct SpeedRow {
  std::string id;
  double params = 0;
  double measured_tokens_per_s = 0, predicted_tokens_per_s = 0;
  std::optional<double> measured_mfu;  // over the peak the prediction used
  double predicted_mfu = 0;     // the prediction's MFU with the run's FLOPs per token (the model's when unmeasured)
  double error = 0;             // predicted / measured − 1
  std::string constants;        // where the device's efficiency constants come from (a catalog entry or data/validate/cpu.yaml)
  bool operator==(const SpeedRow&) const = default;
};

struct ReportOptions {
  Tolerances tolerances;
  int bootstrap_resamples = 200;  // Approach 2 and 3 refits, resampling within each budget
  std::uint64_t seed = 0;
  fit::InitGrid grid = fit::chinchilla_grid();  // Approach 3's starts
  int min_runs_approach3 = 8;   // fewer finished runs: Approach 3 is not fitted (5 parameters)
  // Fewer finished runs: the interaction law (6 parameters) is not fitted; it also needs 3 budgets to hold out.
  int min_runs_interaction = 12;
  fit::FormChoiceOptions form_choice;
  int threads = 0;  // the bootstrap's threads; 0: every core (the result does not depend on it)
};

// Approach 3 with an interaction exponent γ, L = E + (A/N^α + B/D^β)^γ (fit/interaction.hpp), fitted beside
// Chinchilla's additive law, with the same bootstrap, and the choice between the two by held-out budgets.
struct InteractionFit {
  fit::InteractionResult law;
  std::map<std::string, fit::Interval> intervals;  // "a", "E", "alpha", "beta", "gamma" (2.5–97.5 %)
  int bootstrap_failed = 0;                        // resamples whose refit failed (counted outside)
  std::optional<fit::Interval> a_difference;       // Approach 2's a − this law's a, paired over the resamples
  fit::FormChoice choice;
  // The choice's stability: resamples whose own held-out comparison (the same folds, on the resample's runs) made
  // the same choice, out of the bootstrap's resamples; a resample that cannot be compared counts as not the same.
  std::optional<int> choice_same_in_resamples;  // none without a bootstrap (or in a document from before it)
  bool operator==(const InteractionFit&) const = default;
};

struct ValidationReport {
  int runs = 0, finished = 0, failed = 0;
  std::vector<std::string> failures;             // "id: why", every run not used
  std::optional<fit::Approach2Result> approach2;
  std::string approach2_error;                   // why Approach 2 could not be fitted
  std::map<std::string, fit::Interval> approach2_intervals;  // "a", "b" (2.5–97.5 %)
  int bootstrap_resamples = 0, bootstrap_failed = 0;  // resamples drawn; those without Approach 2's a
  std::vector<int> budgets_outside;              // budget indices whose minimum lies outside the sizes tried
                                                 // (kept in approach2's budgets, left out of its a and b)
  std::optional<fit::Approach3Result> approach3;
  // "a", "E", "alpha", "beta" (2.5–97.5 %) over the same resamples, refitted from the full-data optimum
  std::map<std::string, fit::Interval> approach3_intervals;
  int approach3_bootstrap_failed = 0;            // resamples whose refit failed (counted outside the interval)
  // Approach 2's a − Approach 3's a within each resample (both fitted on its draws): the two estimates differ at
  // 95 % when this interval excludes 0 (overlapping intervals of each alone do not say they agree)
  std::optional<fit::Interval> a_difference;
  std::string approach3_note;                    // why it is absent
  std::optional<InteractionFit> interaction;
  std::string interaction_note;                  // why it is absent
  std::optional<double> floor, floor_se;         // mean of the runs' exact floors
  std::vector<Comparison> comparisons;
  std::vector<SpeedRow> speed;
  bool passed = false;  // failing_conditions() is empty
  // Why the verdict fails, in words, each condition that does not hold: Approach 2 not fitted, runs not finished,
  // comparisons outside their tolerance. Empty when it passes.
  std::vector<std::string> failing_conditions() const;
  // The parametric form the held-out budgets chose: the interaction law when it was fitted and predicts them
  // better by the margin, else Chinchilla's. Its E gets a floor comparison of its own (floor_interaction).
  fit::ParametricForm chosen_form() const;
};

// Fits and compares. `accelerators` maps each run's accelerator id ("" for the CPU) to the record the step-time
// model predicts with (lib/validate/speed); runs on a device without one get no speed row.
ValidationReport build_report(const std::vector<ReportRun>& runs, const PlanReference& plan,
                              const std::map<std::string, catalog::Accelerator>& accelerators,
                              const ReportOptions& options);

// Where a budget's parabola puts its minimum when it lies outside the sizes tried: "below the smallest size" or
// "above the largest size".
std::string outside_side(const fit::BudgetFit& b);

// The distance and verdict of one comparison.
Comparison compare(std::string name, std::string what, double expected, double measured, Measure measure,
                   double tolerance);

}  // namespace isoflop::validate
