// Tests for the validation report: fits of a sweep drawn from a known law, comparisons and their
// tolerances, failed runs, and the speed predictions with their calibration.
#include "validate/report.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "fit/simulate.hpp"
#include "support/expect_close.hpp"
#include "validate/presets.hpp"
#include "validate/report_speed.hpp"

namespace isoflop::validate {
namespace {

// A sweep of 4 budgets spaced ×3 with 7 sizes each, D/N from 4 to 200 (the minimum inside), drawn from
// Hoffmann et al. 2022's eq. 10 law with 0.5 % log-normal noise.
std::vector<ReportRun> sweep_from_law(double noise) {
  fit::SimulationSpec s;
  s.budgets_flops = {1e18, 3e18, 9e18, 2.7e19};
  s.sizes_per_budget = 7;
  s.min_tokens_per_param = 4;
  s.max_tokens_per_param = 200;
  s.noise = noise;
  std::vector<ReportRun> runs;
  for (const auto& r : fit::simulate_runs(s)) {
    ReportRun x;
    x.budget = static_cast<int>(std::lround(std::log(r.flops / 1e18) / std::log(3.0)));
    x.id = "b" + std::to_string(x.budget) + "-s" + std::to_string(runs.size());
    x.budget_flops = r.flops;
    x.params = r.params;
    x.tokens = r.tokens;
    x.loss = r.loss;
    x.finished = true;
    x.floor = s.law.E;
    x.floor_se = 0.002;
    runs.push_back(x);
  }
  return runs;
}

const fit::TrueLaw kLaw;
const double kTrueA = kLaw.beta / (kLaw.alpha + kLaw.beta);  // Hoffmann et al. 2022 eq. 4: a = β/(α+β)

PlanReference plan_of_law(double budget) {
  const double G = std::pow(kLaw.alpha * kLaw.A / (kLaw.beta * kLaw.B), 1 / (kLaw.alpha + kLaw.beta));
  return {"chinchilla", kTrueA, budget, G * std::pow(budget / 6, kTrueA), {}};
}

ReportOptions quick_options() {
  ReportOptions o;
  o.bootstrap_resamples = 60;
  o.grid = fit::coarse_grid();
  return o;
}

}  // namespace

TEST_CASE("a sweep drawn from Chinchilla's law recovers a, E and the plan's N_opt, and passes") {
  const auto runs = sweep_from_law(0.002);
  // Chinchilla's full grid of starts for Approach 3: from the coarse grid, L-BFGS ends at E 1.69 in one build
  // and 1.80 in another (28 runs over 1.5 decades of compute leave E and A weakly separated).
  ReportOptions options = quick_options();
  options.grid = isoflop::fit::chinchilla_grid();
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, options);
  REQUIRE(r.approach2);
  CHECK(r.finished == 28);
  CHECK(r.failed == 0);
  CHECK(std::fabs(r.approach2->a - kTrueA) < 0.03);
  CHECK(r.budgets_outside.empty());
  // The bootstrap interval holds the fitted a and is no wider than ±0.1 (the target).
  REQUIRE(r.approach2_intervals.count("a"));
  const auto& ia = r.approach2_intervals.at("a");
  CHECK(ia.p2_5 <= r.approach2->a);
  CHECK(ia.p97_5 >= r.approach2->a);
  CHECK(ia.p97_5 - ia.p2_5 < 0.2);
  REQUIRE(r.approach3);
  EXPECT_CLOSE(r.approach3->E, kLaw.E, 0.05);
  CHECK(std::fabs(r.approach3->a - kTrueA) < 0.05);
  // Approach 3's interval, over the same within-budget resamples, holds its a and the true one; on data the law
  // drew, both approaches estimate one exponent: their paired difference's interval holds 0.
  REQUIRE(r.approach3_intervals.count("a"));
  const auto& i3 = r.approach3_intervals.at("a");
  CHECK(i3.p2_5 <= i3.p10);
  CHECK(i3.p10 <= i3.p50);
  CHECK(i3.p50 <= i3.p90);
  CHECK(i3.p90 <= i3.p97_5);
  CHECK(i3.p2_5 <= r.approach3->a);
  CHECK(i3.p97_5 >= r.approach3->a);
  CHECK(i3.p2_5 <= kTrueA);
  CHECK(i3.p97_5 >= kTrueA);
  CHECK(i3.p97_5 - i3.p2_5 > 0);  // the refits moved: not stopped at their start
  REQUIRE(r.a_difference);
  CHECK(r.a_difference->p2_5 <= 0);
  CHECK(r.a_difference->p97_5 >= 0);
  CHECK(r.a_difference->p2_5 <= r.approach2->a - r.approach3->a);
  CHECK(r.a_difference->p97_5 >= r.approach2->a - r.approach3->a);
  REQUIRE(r.approach3_intervals.count("E"));
  CHECK(r.approach3_intervals.at("E").p2_5 <= kLaw.E + 0.05);
  CHECK(r.approach3_bootstrap_failed <= 3);
  REQUIRE(r.comparisons.size() == 4);  // a, D/N, N_opt at the plan's budget, floor (no speed without devices)
  for (const auto& c : r.comparisons) CHECK_MESSAGE(c.within, c.name << " off by " << c.distance);
  CHECK(r.passed);
}

TEST_CASE("a plan whose law has another exponent fails the comparison of a and of N_opt at its budget") {
  PlanReference plan = plan_of_law(5.76e23);
  plan.a = 0.73;  // Kaplan et al. 2020's N_opt ∝ C^0.73
  const auto r = build_report(sweep_from_law(0.005), plan, {}, quick_options());
  REQUIRE(r.comparisons.size() >= 3);
  CHECK(r.comparisons[0].name == "exponent_a");
  CHECK_FALSE(r.comparisons[0].within);
  EXPECT_CLOSE(r.comparisons[0].distance, std::fabs(r.approach2->a - 0.73), 1e-12);
  CHECK_FALSE(r.passed);
}

TEST_CASE("failed runs are counted and named, and the fit says how many runs it used") {
  auto runs = sweep_from_law(0.005);
  runs[3].finished = false;
  runs[3].failure = "no results.json";
  // Budget 1 keeps only two sizes: it cannot carry a parabola and is left out of Approach 2, with a note.
  for (auto& r : runs)
    if (r.budget == 1 && r.id != runs[7].id && r.id != runs[8].id) r.finished = false, r.failure = "killed";
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, quick_options());
  CHECK(r.failed == 6);
  CHECK(r.finished == 22);
  REQUIRE(r.approach2);
  size_t used = 0;
  for (const auto& b : r.approach2->budgets) used += b.runs;
  CHECK(used == 20);
  CHECK(r.approach2->budgets.size() == 3);
  bool named = false, budget_noted = false;
  for (const auto& f : r.failures) {
    named = named || f == runs[3].id + ": no results.json";
    budget_noted = budget_noted || f.find("budget 1: only 2 finished size(s)") == 0;
  }
  CHECK(named);
  CHECK(budget_noted);
  CHECK_FALSE(r.passed);  // a sweep with failed runs does not validate the plan
}

TEST_CASE("too few runs for Approach 3: it is skipped with the reason, Approach 2 still fits") {
  auto runs = sweep_from_law(0.005);
  ReportOptions o = quick_options();
  o.min_runs_approach3 = 40;
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, o);
  CHECK(r.approach2);
  CHECK_FALSE(r.approach3);
  CHECK(r.approach3_note == "28 finished runs; Approach 3 (5 parameters) needs 40");
  for (const auto& c : r.comparisons) CHECK(c.name != "floor");
}

TEST_CASE("a budget whose minimum lies beyond the sizes tried is flagged") {
  auto runs = sweep_from_law(0);
  // Keep only the smallest three sizes of the largest budget: its profile still falls at the largest.
  std::vector<ReportRun> kept;
  for (const auto& r : runs)
    if (r.budget != 3 || r.tokens / r.params > 40) kept.push_back(r);
  const auto r = build_report(kept, plan_of_law(5.76e23), {}, quick_options());
  REQUIRE(r.approach2);
  CHECK(r.budgets_outside == std::vector<int>{3});
  // Its parabola is kept, flagged, but a comes from the other three budgets alone, and the report says why.
  REQUIRE(r.approach2->budgets.size() == 4);
  CHECK(r.approach2->budgets[3].extrapolated);
  CHECK(outside_side(r.approach2->budgets[3]) == "above the largest size");
  std::vector<ReportRun> others;
  for (const auto& x : kept)
    if (x.budget != 3) others.push_back(x);
  EXPECT_CLOSE(r.approach2->a, build_report(others, plan_of_law(5.76e23), {}, quick_options()).approach2->a, 1e-9);
  bool named = false;
  for (const auto& f : r.failures)
    named = named || (f.find("left out of Approach 2: the budget of 2.7e19 FLOPs") == 0 &&
                      f.find("above the largest size tried") != std::string::npos);
  CHECK(named);
}

TEST_CASE("a budget whose losses rise across every size is left out of a, never fitted with its vertex") {
  auto runs = sweep_from_law(0);
  // Budget 0: loss rising with N and slightly convex, so the parabola's vertex falls far below the smallest size
  // (the cpu preset's 4.5e11 budget put it at 0.005 parameters).
  double smallest = INFINITY;
  for (const auto& r : runs)
    if (r.budget == 0) smallest = std::min(smallest, r.params);
  for (auto& r : runs)
    if (r.budget == 0) r.loss = 3 + 0.3 * std::log(r.params / smallest) + 0.01 * std::pow(std::log(r.params / smallest), 2);
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, quick_options());
  REQUIRE(r.approach2);
  CHECK(r.budgets_outside == std::vector<int>{0});
  REQUIRE(r.approach2->budgets[0].extrapolated);
  CHECK(r.approach2->budgets[0].params_opt < smallest / 100);
  CHECK(outside_side(r.approach2->budgets[0]) == "below the smallest size");
  CHECK(std::fabs(r.approach2->a - kTrueA) < 0.03);  // the three budgets of the law still give its exponent
  REQUIRE(r.approach2_intervals.count("a"));
  // With only one budget's minimum inside, there is no exponent to fit, and the report says why.
  for (auto& x : runs)
    if (x.budget >= 2) x.loss = 3 + 0.3 * std::log(x.params / smallest);
  const auto none = build_report(runs, plan_of_law(5.76e23), {}, quick_options());
  CHECK_FALSE(none.approach2);
  CHECK(none.approach2_error.find("budgets have their minimum inside the sizes they tried") != std::string::npos);
}

TEST_CASE("a budget whose losses do not curve upwards is left out of Approach 2, named, and the rest still fit") {
  auto runs = sweep_from_law(0.002);
  for (auto& r : runs)
    if (r.budget == 0) r.loss = 3.0 - 0.01 * std::pow(std::log(r.params / 1e8), 2);  // concave: no minimum
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, quick_options());
  REQUIRE(r.approach2);
  CHECK(r.approach2->budgets.size() == 3);
  REQUIRE(r.approach2->dropped.size() == 1);
  // Named by the budget and its runs' ids, not by a file's lines and columns.
  std::string ids;
  for (const auto& x : runs)
    if (x.budget == 0) ids += (ids.empty() ? "" : ", ") + x.id;
  const std::string why = "the budget of 1e18 FLOPs (runs " + ids +
                          "): the losses do not curve upwards in log N, so the profile has no minimum";
  CHECK(r.approach2->dropped[0] == why);
  CHECK(std::count(r.failures.begin(), r.failures.end(), "left out of Approach 2: " + why) == 1);
  CHECK(std::fabs(r.approach2->a - kTrueA) < 0.05);
  CHECK(r.approach2_intervals.count("a") == 1);
}

TEST_CASE("bootstrap: on runs from a known law the 95 % interval covers the true a and no resample fails") {
  // 0.2 % noise, 7 sizes a budget with the minimum inside: every resample keeps at least 2 budgets' minima inside
  // (at 0.5 % and 1 % noise the flat profiles of the smaller budgets lose theirs in 1 and 6 of 200 resamples).
  ReportOptions o = quick_options();
  o.bootstrap_resamples = 200;
  o.min_runs_approach3 = 1000;  // Approach 3 is not what this tests
  const auto r = build_report(sweep_from_law(0.002), plan_of_law(5.76e23), {}, o);
  REQUIRE(r.approach2);
  CHECK(std::fabs(r.approach2->a - kTrueA) < 0.05);
  CHECK(r.bootstrap_failed == 0);
  REQUIRE(r.approach2_intervals.count("a"));
  const auto& i = r.approach2_intervals.at("a");
  CHECK(i.p2_5 <= kTrueA);
  CHECK(i.p97_5 >= kTrueA);
  CHECK(i.p2_5 <= i.p10);
  CHECK(i.p90 <= i.p97_5);
}

TEST_CASE("bootstrap: a budget that draws fewer than 3 sizes is left out of that resample, as the fit would") {
  // 3 budgets of 3 sizes around N_opt = 1e7·(C/1e18)^0.5, noise-free parabolas in ln N: a = 0.5 exactly. A budget
  // keeps its 3 sizes in a resample with probability q = 3!/3^3 = 2/9; the resample has an a when at least 2 of
  // the 3 do: 3q²(1 − q) + q³ = 0.1262 (requiring all 3 would leave q³ = 0.011).
  std::vector<ReportRun> runs;
  for (int k = 0; k < 3; ++k) {
    const double c = 1e18 * std::pow(3.0, k), n_opt = 1e7 * std::sqrt(c / 1e18);
    for (double f : {0.5, 1.0, 2.0}) {
      ReportRun x;
      x.id = "b" + std::to_string(k) + "-s" + std::to_string(runs.size() % 3);
      x.index = static_cast<int>(runs.size()) + 1;
      x.budget = k;
      x.budget_flops = c;
      x.params = f * n_opt;
      x.tokens = c / (6 * x.params);
      x.loss = 3 - 0.05 * k + 0.1 * std::pow(std::log(f), 2);
      x.finished = true;
      runs.push_back(x);
    }
  }
  ReportOptions o = quick_options();
  o.bootstrap_resamples = 1000;
  o.min_runs_approach3 = 1000;
  const auto r = build_report(runs, plan_of_law(5.76e23), {}, o);
  REQUIRE(r.approach2);
  EXPECT_CLOSE(r.approach2->a, 0.5, 1e-9);
  const double q = 2.0 / 9, p = 3 * q * q * (1 - q) + q * q * q;
  const double expected = 1000 * (1 - p), sd = std::sqrt(1000 * p * (1 - p));
  CHECK(std::fabs(r.bootstrap_failed - expected) < 5 * sd);
  // Far more than 5 % of resamples have no a: no interval holds 95 % of them.
  CHECK(r.approach2_intervals.empty());
}

TEST_CASE("comparisons: absolute, relative and factor distances against the tolerance") {
  CHECK(compare("x", "", 0.5, 0.58, Measure::kAbsolute, 0.1).within);
  EXPECT_CLOSE(compare("x", "", 0.5, 0.58, Measure::kAbsolute, 0.1).distance, 0.08, 1e-12);
  CHECK_FALSE(compare("x", "", 2.0, 2.2, Measure::kRelative, 0.05).within);
  // A factor is symmetric: half and double are both 100 % off.
  EXPECT_CLOSE(compare("x", "", 10, 5, Measure::kFactor, 1).distance, 1.0, 1e-12);
  EXPECT_CLOSE(compare("x", "", 10, 20, Measure::kFactor, 1).distance, 1.0, 1e-12);
  CHECK_FALSE(compare("x", "", 10, NAN, Measure::kFactor, 1).within);
}

TEST_CASE("tolerances parse by name, and unknown names and bad values are field errors") {
  const Tolerances t = parse_tolerances("a=0.05,speed=0.4");
  CHECK(t.exponent_a == 0.05);
  CHECK(t.speed == 0.4);
  CHECK(t.floor == Tolerances{}.floor);
  CHECK_THROWS_WITH_AS(parse_tolerances("flor=0.1"), doctest::Contains("tolerance: 'flor=0.1' is not NAME=VALUE"),
                       FieldError);
  CHECK_THROWS_WITH_AS(parse_tolerances("flor=0.1"), doctest::Contains("did you mean 'floor'"), FieldError);
  CHECK_THROWS_AS(parse_tolerances("a=-1"), FieldError);
  CHECK_THROWS_AS(parse_tolerances("a"), FieldError);
}

TEST_CASE("speed: the step-time model's prediction scales with the peak, and calibration reproduces the runs") {
  const catalog::Catalog catalog = catalog::load_catalog();
  std::vector<ReportRun> runs;
  for (int layers : {2, 4, 6}) {
    ReportRun r;
    r.peak_flops = layers == 4 ? 2e10 : 1e11;  // one timing caught a busy moment
    r.id = "l" + std::to_string(layers);
    r.finished = true;
    r.accelerator = kCpuAccelerator;
    r.batch = 8;
    r.architecture.layers = layers;
    r.architecture.d_model = 64 * layers;
    r.architecture.heads = 4;
    r.architecture.vocab = 512;
    r.architecture.seq = 128;
    runs.push_back(r);
  }
  const auto devices = speed_accelerators(runs, catalog, 51.2e9);
  REQUIRE(devices.count(kCpuAccelerator));
  const catalog::Accelerator& cpu = devices.at(kCpuAccelerator);
  CHECK(cpu.peak_16bit_flops == 1e11);  // the median of the runs' peaks
  // Without a catalog entry the CPU's constants are data/validate/cpu.yaml's.
  EXPECT_CLOSE(cpu.gemm_half_width, sweep_settings().cpu.constants.gemm_half_width, 0);
  EXPECT_CLOSE(cpu.gemm_efficiency_max, sweep_settings().cpu.constants.gemm_efficiency_max, 0);
  // "Measured" speeds: what the model predicts with a GEMM efficiency of 0.3 instead of the file's.
  catalog::Accelerator slow = cpu;
  slow.gemm_efficiency_max = 0.3;
  for (auto& r : runs) r.tokens_per_s = predict_speed(r, slow).predicted_tokens_per_s;
  for (auto& r : runs) r.mfu = 0.5;  // against each run's own sgemm timing
  for (const auto& r : runs) {
    const SpeedRow row = predict_speed(r, cpu);
    CHECK(row.error > 0.2);  // the reference machine's constants overpredict a slower device
    // The measured MFU is restated over the sweep's peak (the one the prediction used): the run whose own timing
    // caught a busy moment (2e10) reached a fifth of the sweep's 1e11, not half.
    REQUIRE(row.measured_mfu);
    EXPECT_CLOSE(*row.measured_mfu, r.peak_flops == 2e10 ? 0.1 : 0.5, 1e-12);
    // The predicted MFU counts FLOPs as the run did: it differs from the measured one as the tokens/s do.
    EXPECT_CLOSE(row.predicted_mfu / *row.measured_mfu, row.predicted_tokens_per_s / row.measured_tokens_per_s, 1e-12);
    CHECK(row.constants.find("data/validate/cpu.yaml: fitted") == 0);
    catalog::Accelerator faster = cpu;
    faster.peak_16bit_flops = 2e11;
    CHECK(predict_speed(r, faster).predicted_tokens_per_s > row.predicted_tokens_per_s);
  }
  const auto fitted = calibrate_speed(runs, devices, catalog);
  REQUIRE(fitted.size() == 1);
  CHECK(fitted[0].accelerator.name == kCpuAccelerator);
  CHECK(fitted[0].calibration_error.runs == 3);
  CHECK(fitted[0].calibration_error.max_abs_error < 0.02);
}

TEST_CASE("speed: a sweep's calibration recovers a fixed per-layer time that its tiny layers are bound by") {
  const catalog::Catalog catalog = catalog::load_catalog();
  std::vector<ReportRun> runs;
  for (int layers : {1, 2, 3, 4, 6, 8})
    for (int d_model : {16, 48, 128}) {
      ReportRun r;
      r.peak_flops = 1e11;
      r.id = "l" + std::to_string(layers) + "-d" + std::to_string(d_model);
      r.finished = true;
      r.accelerator = kCpuAccelerator;
      r.batch = 8;
      r.architecture.layers = layers;
      r.architecture.d_model = d_model;
      r.architecture.heads = 4;
      r.architecture.vocab = 64;
      r.architecture.seq = 64;
      runs.push_back(r);
    }
  const auto devices = speed_accelerators(runs, catalog, 51.2e9);
  // "Measured": the reference constants with 400 us per layer and micro-batch.
  catalog::Accelerator truth = devices.at(kCpuAccelerator);
  truth.layer_overhead_s = 400e-6;
  for (auto& r : runs) r.tokens_per_s = predict_speed(r, truth).predicted_tokens_per_s;
  CHECK(predict_speed(runs[0], devices.at(kCpuAccelerator)).error > 0.1);  // without it: too fast
  const auto fitted = calibrate_speed(runs, devices, catalog);
  REQUIRE(fitted.size() == 1);
  EXPECT_CLOSE(fitted[0].accelerator.layer_overhead_s, 400e-6, 0.02);
  CHECK(fitted[0].calibration_error.max_abs_error < 0.01);
}

TEST_CASE("the speed comparison: expected is the model's tokens/s, measured the run's, off by |pred/meas - 1|") {
  auto runs = sweep_from_law(0.002);
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].accelerator = kCpuAccelerator;
    runs[i].peak_flops = 1e11;
    runs[i].batch = 8;
    runs[i].architecture.layers = 2;
    runs[i].architecture.d_model = 64;
    runs[i].architecture.heads = 4;
    runs[i].architecture.vocab = 256;
    runs[i].architecture.seq = 64;
    runs[i].tokens_per_s = 1000.0 * static_cast<double>(i + 1);  // every run its own speed
  }
  const std::map<std::string, catalog::Accelerator> devices = {{kCpuAccelerator, cpu_accelerator(1e11, 51.2e9)}};
  const auto r = build_report(runs, plan_of_law(5.76e23), devices, quick_options());
  REQUIRE(r.comparisons.back().name == "speed");
  const Comparison& c = r.comparisons.back();
  const SpeedRow* worst = nullptr;
  for (const auto& s : r.speed)
    if (c.what.find("(" + s.id + ")") != std::string::npos) worst = &s;
  REQUIRE(worst);
  CHECK(c.expected == worst->predicted_tokens_per_s);
  CHECK(c.measured == worst->measured_tokens_per_s);
  CHECK(c.measured != c.expected);
  EXPECT_CLOSE(c.distance, std::fabs(worst->predicted_tokens_per_s / worst->measured_tokens_per_s - 1), 1e-12);
  for (const auto& s : r.speed) CHECK(std::fabs(s.error) <= c.distance);
}

TEST_CASE("speed: runs on an accelerator the catalog lacks are a field error naming it") {
  ReportRun r;
  r.finished = true;
  r.accelerator = "h900";
  r.peak_flops = 1e15;
  CHECK_THROWS_WITH_AS(speed_accelerators({r}, catalog::load_catalog(), 51.2e9), doctest::Contains("h900"),
                       InputError);
}

TEST_CASE("Approach 3's bootstrap is seeded: the same seed gives the same interval, another seed another") {
  const auto runs = sweep_from_law(0.005);
  ReportOptions o = quick_options();
  o.bootstrap_resamples = 30;
  const auto first = build_report(runs, plan_of_law(5.76e23), {}, o);
  const auto again = build_report(runs, plan_of_law(5.76e23), {}, o);
  REQUIRE(first.approach3_intervals.count("a"));
  CHECK(first.approach3_intervals == again.approach3_intervals);
  o.seed = 7;
  const auto other = build_report(runs, plan_of_law(5.76e23), {}, o);
  REQUIRE(other.approach3_intervals.count("a"));
  CHECK(other.approach3_intervals.at("a") != first.approach3_intervals.at("a"));
  o.bootstrap_resamples = 0;  // no bootstrap: no interval for either approach
  const auto none = build_report(runs, plan_of_law(5.76e23), {}, o);
  CHECK(none.approach3_intervals.empty());
  CHECK(none.approach2_intervals.empty());
  CHECK_FALSE(none.a_difference);
}

TEST_CASE("without Approach 2 (no budget keeps 3 sizes) Approach 3 still gets its interval and the resample count") {
  const auto runs = sweep_from_law(0.002);
  // Keep two sizes per budget: Approach 2 needs 3, Approach 3 fits the 8 runs left.
  std::vector<ReportRun> kept;
  std::map<int, int> per_budget;
  for (const auto& r : runs)
    if (per_budget[r.budget]++ < 2) kept.push_back(r);
  REQUIRE(kept.size() == 8);
  ReportOptions o = quick_options();
  const auto r = build_report(kept, plan_of_law(5.76e23), {}, o);
  CHECK_FALSE(r.approach2);
  REQUIRE(r.approach3);
  CHECK(r.bootstrap_resamples == o.bootstrap_resamples);
  CHECK_FALSE(r.a_difference);
  CHECK((r.approach3_intervals.count("a") == 1 || r.approach3_bootstrap_failed > 0));
}

}  // namespace isoflop::validate
