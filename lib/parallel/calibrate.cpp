// Run predictions and the least-squares fit of an accelerator's efficiency constants.
#include "parallel/calibrate.hpp"

#include <nlopt.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"
#include "parallel/cluster.hpp"
#include "parallel/time_model.hpp"
#include "units/format.hpp"

namespace isoflop::parallel {

RunSetup run_setup(const catalog::Catalog& catalog, const catalog::MeasuredRun& run) {
  ClusterRequest request;
  request.gpu = run.gpu;
  if (!run.node.empty()) request.node = run.node;
  request.gpus = run.gpus;
  RunSetup s;
  s.cluster = resolve_cluster(catalog, request).spec;
  s.job.architecture = run.architecture;
  s.job.seq = run.seq;
  s.job.global_batch = run.global_batch;
  s.layout.tp = run.tp;
  s.layout.pp = run.pp;
  s.layout.dp = run.gpus / (run.tp * run.pp);  // dp × cp (see RunSetup)
  s.layout.vpp = run.vpp;
  s.layout.micro_batch = run.micro_batch;
  s.layout.zero_stage = run.zero_stage;
  s.layout.recompute = run.recompute;
  s.layout.sequence_parallel = run.sequence_parallel;
  if (const std::string why = layout_violation(s.layout, s.job, s.cluster); !why.empty())
    throw CatalogError(run.file + ": run '" + run.name + "': " + why);
  return s;
}

RunPrediction predict_run(const RunSetup& setup, const catalog::MeasuredRun& run, const catalog::Accelerator& acc) {
  ClusterSpec cluster = setup.cluster;
  cluster.accelerator = acc;
  const StepTime st = estimate_step_time(setup.job, cluster, setup.layout);
  const double gpus = run.gpus;
  double measured = 0;
  switch (run.metric) {
    case catalog::MeasuredMetric::kStepTime: measured = run.value; break;
    case catalog::MeasuredMetric::kTokensPerSPerGpu:
      measured = static_cast<double>(run.global_batch * run.seq) / (gpus * run.value);
      break;
    case catalog::MeasuredMetric::kModelTflopsPerGpu: measured = st.model_flops_per_step / (gpus * run.value * 1e12); break;
    case catalog::MeasuredMetric::kHardwareTflopsPerGpu:
      measured = st.hardware_flops_per_step / (gpus * run.value * 1e12);
      break;
    case catalog::MeasuredMetric::kMfu: measured = st.model_flops_per_step / (gpus * run.value * acc.peak_16bit_flops); break;
  }
  return {run.name, run.held_out, measured, st.step_time_s, st.model_flops_per_step};
}

ErrorSummary summarize(const std::vector<RunPrediction>& predictions) {
  ErrorSummary s;
  for (const auto& p : predictions) {
    const double e = std::fabs(p.error());
    s.mean_abs_error += e;
    s.max_abs_error = std::max(s.max_abs_error, e);
    const double l = std::log(p.measured_step_time_s / p.predicted_step_time_s);
    s.rms_log_error += l * l;
    ++s.runs;
  }
  if (s.runs > 0) {
    s.mean_abs_error /= s.runs;
    s.rms_log_error = std::sqrt(s.rms_log_error / s.runs);
  }
  return s;
}

namespace {

// Efficiency max, half width, half rows, comm efficiency and the per-layer overhead, all in log space.
constexpr unsigned kConstants = 5;
// Which constants the pull toward the start holds: the GEMM and link constants. The per-layer overhead has no
// prior value to hold (its start is a guess), and where the runs do not determine it, it is too small to move a
// prediction.
constexpr std::array<bool, kConstants> kPulledToStart = {true, true, true, true, false};

struct FitContext {
  const catalog::Accelerator* start;
  const std::vector<const catalog::MeasuredRun*>* runs;
  const std::vector<RunSetup>* setups;
  std::array<double, kConstants> x0;
  double prior_weight;
  bool fit_layer_overhead;
};

// The start's record with the constants x; the per-layer overhead stays the start's (possibly 0, which log space
// cannot hold) unless it is fitted.
catalog::Accelerator with_constants(const catalog::Accelerator& start, const double* x, bool fit_layer_overhead) {
  catalog::Accelerator a = start;
  set_efficiency_constants(a, {std::exp(x[0]), std::exp(x[1]), std::exp(x[2]), std::exp(x[3]),
                               fit_layer_overhead ? std::exp(x[4]) : start.layer_overhead_s});
  return a;
}

double objective(unsigned n, const double* x, double* /*grad*/, void* data) {
  const auto* c = static_cast<const FitContext*>(data);
  const catalog::Accelerator a = with_constants(*c->start, x, c->fit_layer_overhead);
  double sum = 0;
  for (size_t i = 0; i < c->runs->size(); ++i) {
    const RunPrediction p = predict_run((*c->setups)[i], *(*c->runs)[i], a);
    const double r = std::log(p.measured_step_time_s / p.predicted_step_time_s);
    sum += r * r;
  }
  double value = sum / static_cast<double>(c->runs->size());
  for (unsigned k = 0; k < n; ++k)
    if (kPulledToStart[k]) value += c->prior_weight * (x[k] - c->x0[k]) * (x[k] - c->x0[k]);
  return value;
}

}  // namespace

CalibrationResult calibrate_accelerator(const catalog::Catalog& catalog, const std::vector<catalog::MeasuredRun>& runs,
                                        const std::string& gpu, const CalibrationOptions& options) {
  const catalog::Accelerator& start = catalog.accelerator(gpu);
  std::vector<const catalog::MeasuredRun*> fit_runs, judge_runs;
  std::vector<RunSetup> fit_setups, judge_setups;
  // No run computes faster than the chip's dense 16-bit peak, the one the step-time model runs at (a measured run
  // states no precision): a measurement past it is a typo, another precision or another chip, and a fit would
  // bend every constant to reach it.
  const double top_peak = start.peak_16bit_flops;
  for (const auto& r : runs) {
    if (r.gpu != gpu) continue;
    (r.held_out ? judge_runs : fit_runs).push_back(&r);
    const RunSetup& setup = (r.held_out ? judge_setups : fit_setups).emplace_back(run_setup(catalog, r));
    const RunPrediction p = predict_run(setup, r, start);
    const double utilisation = p.model_flops_per_step / (r.gpus * p.measured_step_time_s * top_peak);
    // Ten thousand times under it, a hung run or an absurd value (1e9 s): the fit would pin its constants at their
    // bounds to follow it, and save them. (A run a thousand times slow, ms written as s, stays above it: the fit
    // says which constant it left at a bound.)
    constexpr double kLeastUtilisation = 1e-4;
    if (!(utilisation <= 1) || !(utilisation >= kLeastUtilisation))
      throw CatalogError(
          r.file + ": run '" + r.name + "': the measurement means " + units::format_significant(utilisation * 100, 3) +
          "% of " + gpu + "'s peak " + std::to_string(static_cast<long long>(std::llround(top_peak / 1e12))) +
          " TFLOP/s in model FLOPs alone; accepted: " + units::format_significant(kLeastUtilisation * 100, 3) +
          "% to 100% of the peak (check the value and its unit)");
  }
  if (fit_runs.empty())
    throw FieldError("gpu", "no run to calibrate '" + gpu + "' on (runs on it: " +
                                std::to_string(judge_runs.size()) + ", all held out)");
  // Start from the catalog's constants; an accelerator without any starts from a neutral guess.
  EfficiencyConstants c0 = efficiency_constants(start);
  const EfficiencyConstants& n = options.neutral_start;
  if (!(c0.gemm_efficiency_max > 0)) c0 = n;
  if (!(c0.gemm_half_rows > 0)) c0.gemm_half_rows = n.gemm_half_rows;
  if (!(c0.comm_efficiency > 0)) c0.comm_efficiency = n.comm_efficiency;
  if (!(c0.layer_overhead_s > 0)) c0.layer_overhead_s = n.layer_overhead_s;
  FitContext ctx{&start, &fit_runs, &fit_setups, {}, options.prior_weight, options.fit_layer_overhead};
  std::array<double, kConstants> x = {std::log(c0.gemm_efficiency_max), std::log(c0.gemm_half_width),
                                      std::log(c0.gemm_half_rows), std::log(c0.comm_efficiency),
                                      std::log(c0.layer_overhead_s)};
  ctx.x0 = x;
  // Bounds: efficiencies in (0.05, 1]; widths and rows between 1 and 1e6; the per-layer overhead between
  // 10 ns and 100 ms.
  std::array<double, kConstants> lower = {std::log(0.05), 0.0, 0.0, std::log(0.05), std::log(1e-8)};
  std::array<double, kConstants> upper = {0.0, std::log(1e6), std::log(1e6), 0.0, std::log(0.1)};
  if (!options.fit_comm_efficiency) lower[3] = upper[3] = x[3];
  if (!options.fit_layer_overhead) lower[4] = upper[4] = x[4];
  for (unsigned k = 0; k < kConstants; ++k) x[k] = std::clamp(x[k], lower[k], upper[k]);
  nlopt_opt opt = nlopt_create(NLOPT_LN_NELDERMEAD, kConstants);
  nlopt_set_lower_bounds(opt, lower.data());
  nlopt_set_upper_bounds(opt, upper.data());
  nlopt_set_min_objective(opt, objective, &ctx);
  nlopt_set_xtol_rel(opt, 1e-6);
  nlopt_set_ftol_abs(opt, 1e-12);
  nlopt_set_maxeval(opt, 4000);
  const std::array<double, kConstants> step = {0.2, 0.5, 0.5, 0.2, 0.5};
  nlopt_set_initial_step(opt, step.data());
  // Nelder–Mead's simplex can collapse before the minimum; restarting from its answer until the objective
  // stops improving is the usual remedy.
  double best = HUGE_VAL;
  nlopt_result status = NLOPT_SUCCESS;
  for (int restart = 0; restart < 8; ++restart) {
    const double before = best;
    status = nlopt_optimize(opt, x.data(), &best);
    if (status < 0 || !(best < before * (1 - 1e-9))) break;
  }
  nlopt_destroy(opt);
  if (status < 0) throw Error("calibration: the optimizer failed (NLopt status " + std::to_string(status) + ")");

  CalibrationResult out;
  static constexpr const char* kNames[kConstants] = {"gemm_efficiency_max", "gemm_half_width", "gemm_half_rows",
                                                     "comm_efficiency", "layer_overhead_s"};
  for (unsigned k = 0; k < kConstants; ++k) {
    if (!(lower[k] < upper[k])) continue;  // held, not fitted
    const bool low = x[k] <= lower[k] + 1e-6, high = x[k] >= upper[k] - 1e-6;
    // An efficiency of 1 is a bound the model allows (the peak), not a sign of runs it cannot explain.
    if (low || (high && k != 0 && k != 3)) {
      char at[96];
      std::snprintf(at, sizeof at, "%s at %.6g, its %s bound", kNames[k], std::exp(low ? lower[k] : upper[k]),
                    low ? "lower" : "upper");
      out.at_bounds.emplace_back(at);
    }
  }
  out.accelerator = with_constants(start, x.data(), options.fit_layer_overhead);
  out.accelerator.calibrated = true;
  for (size_t i = 0; i < fit_runs.size(); ++i)
    out.calibration.push_back(predict_run(fit_setups[i], *fit_runs[i], out.accelerator));
  for (size_t i = 0; i < judge_runs.size(); ++i)
    out.held_out.push_back(predict_run(judge_setups[i], *judge_runs[i], out.accelerator));
  out.calibration_error = summarize(out.calibration);
  out.held_out_error = summarize(out.held_out);
  char note[160];
  std::snprintf(note, sizeof note, "fitted to %d measured run%s (mean |error| %.1f%%, max %.1f%%)",
                out.calibration_error.runs, out.calibration_error.runs == 1 ? "" : "s",
                100 * out.calibration_error.mean_abs_error,
                100 * out.calibration_error.max_abs_error);
  out.accelerator.calibration_source = note;
  for (const auto& b : out.at_bounds) out.accelerator.calibration_source += "; " + b;
  // Fewer runs than free constants: the runs fix a combination of them, and the pull toward the start decides the
  // rest (one run sets the overall efficiency, not how it saturates with width and rows).
  int free_constants = 0;
  for (unsigned k = 0; k < kConstants; ++k) free_constants += lower[k] < upper[k] ? 1 : 0;
  if (out.calibration_error.runs < free_constants) {
    out.underdetermined = std::to_string(out.calibration_error.runs) + " run" +
                          (out.calibration_error.runs == 1 ? "" : "s") + " for " + std::to_string(free_constants) +
                          " constants: the runs do not determine them all, and the starting values decide the rest; "
                          "runs of other widths, micro-batches and GPU counts determine them";
    out.accelerator.calibration_source += "; " + out.underdetermined;
  }
  return out;
}


std::vector<CalibrationResult> calibrate_runs(const catalog::Catalog& catalog,
                                              const std::vector<catalog::MeasuredRun>& runs,
                                              const std::optional<std::string>& gpu, const CalibrationOptions& options) {
  std::vector<std::string> gpus;
  for (const auto& r : runs)
    if ((!gpu || r.gpu == *gpu) && std::find(gpus.begin(), gpus.end(), r.gpu) == gpus.end()) gpus.push_back(r.gpu);
  if (gpus.empty()) throw FieldError("gpu", "no run in the file names '" + gpu.value_or("") + "'");
  std::vector<CalibrationResult> out;
  for (const auto& g : gpus) out.push_back(calibrate_accelerator(catalog, runs, g, options));
  return out;
}

}  // namespace isoflop::parallel
