// Calibrating the step-time model's efficiency constants to measured runs: predict each run's step time,
// compare with what was measured, and fit an accelerator's constants (efficiency.hpp) so the predictions
// reproduce the runs. Used for the catalog's published runs and for a user's own measurements.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "catalog/measured_runs.hpp"
#include "parallel/efficiency.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

// A run as the step-time model sees it. Context parallelism is folded into data parallelism (each of the
// cp ranks holds the whole stage and works on 1/cp of every sequence: the same per-GPU FLOPs as cp more
// data-parallel replicas), since Layout has no context-parallel degree.
struct RunSetup {
  JobSpec job;
  ClusterSpec cluster;
  Layout layout;
};

// Throws FieldError naming the run when its layout is one the model cannot take (layout_violation).
RunSetup run_setup(const catalog::Catalog& catalog, const catalog::MeasuredRun& run);

struct RunPrediction {
  std::string name;
  bool held_out = false;
  double measured_step_time_s = 0;   // the measured value converted with the model's FLOP count
  double predicted_step_time_s = 0;
  double model_flops_per_step = 0;  // the model's FLOP count the conversion used
  // Relative error of the predicted per-GPU throughput: measured step / predicted step − 1.
  double error() const { return measured_step_time_s / predicted_step_time_s - 1; }
};

// Predicts `run` with `accelerator`'s constants (the catalog's or a trial set).
RunPrediction predict_run(const RunSetup& setup, const catalog::MeasuredRun& run,
                          const catalog::Accelerator& accelerator);

struct ErrorSummary {
  int runs = 0;
  double mean_abs_error = 0;  // mean of |error| over the runs
  double max_abs_error = 0;
  double rms_log_error = 0;   // √(mean of log²(measured / predicted)): what the fit minimises
};
ErrorSummary summarize(const std::vector<RunPrediction>& predictions);

struct CalibrationOptions {
  // Weight of a pull toward the starting constants, in squared log-units per constant; it keeps constants
  // that the runs do not determine (one run, one shape) where they were.
  double prior_weight = 1e-4;
  bool fit_comm_efficiency = true;  // false: keep the starting comm_efficiency
  // true: fit the fixed per-layer time too (layer_overhead_s). Only runs of small layers determine it; the
  // published runs' layers take tens of milliseconds, so their calibration keeps the catalog's value.
  bool fit_layer_overhead = false;
  // Where the fit starts for constants the catalog lacks (an accelerator without calibration): a middling
  // efficiency, GEMMs saturating at a few hundred columns and rows, 80 % of link bandwidth.
  // A per-layer overhead starts at 10 µs: a few kernel launches.
  EfficiencyConstants neutral_start{0.5, 256, 512, 0.8, 10e-6};
};

struct CalibrationResult {
  catalog::Accelerator accelerator;        // the starting record with the fitted constants, calibrated = true
  std::vector<RunPrediction> calibration;  // runs fitted (held_out false), with the fitted constants
  std::vector<RunPrediction> held_out;     // runs judged only (held_out true)
  ErrorSummary calibration_error, held_out_error;
  // Constants the fit left at a bound of their range ("gemm_efficiency_max at 0.05, its lower bound"): the runs
  // lie outside what the model explains there (an MFU of 0.1 %, a unit slip), so the fit is the bound, not theirs.
  std::vector<std::string> at_bounds;
  // Non-empty when fewer runs were fitted than constants: what the fit cannot tell, said beside it.
  std::string underdetermined;
};

// Fits gemm_efficiency_max, gemm_half_width, gemm_half_rows, comm_efficiency and (when asked) layer_overhead_s
// of accelerator `gpu` to the runs on it that are not held out, minimising the mean squared log error of the step times (Nelder–Mead
// in log space, bounded: efficiencies ≤ 1), starting from the catalog's constants. Throws FieldError("gpu")
// when no run names the accelerator or every run on it is held out.
CalibrationResult calibrate_accelerator(const catalog::Catalog& catalog, const std::vector<catalog::MeasuredRun>& runs,
                                        const std::string& gpu, const CalibrationOptions& options = {});


// Calibrates every accelerator the runs name (or only `gpu`), in the order they first appear.
std::vector<CalibrationResult> calibrate_runs(const catalog::Catalog& catalog,
                                              const std::vector<catalog::MeasuredRun>& runs,
                                              const std::optional<std::string>& gpu = std::nullopt,
                                              const CalibrationOptions& options = {});

}  // namespace isoflop::parallel
