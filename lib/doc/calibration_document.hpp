// The calibrate command's result: per accelerator, the fitted efficiency constants and each run's measured
// and predicted step time; its JSON ("isoflop/calibration/v2"), its table, and the catalog overlay that makes
// later commands use the constants (--catalog DIR).
//
//   {"schema", "inputs": {"runs_file", "gpu" (null: every accelerator the runs name)}, "accelerators": [{"name", "gemm_efficiency_max", "gemm_half_width",
//    "gemm_half_rows", "comm_efficiency", "layer_overhead_s", "calibration_error": {"runs", "mean_abs_error", "max_abs_error", "rms_log_error"},
//    "held_out_error": {...}, "runs": [{"name", "held_out", "measured_step_time_s", "predicted_step_time_s",
//    "error"}]}]}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "doc/document.hpp"
#include "parallel/calibrate.hpp"

namespace isoflop::doc {

struct CalibrationDocument {
  std::string runs_file;
  std::optional<std::string> gpu;  // only this accelerator
  std::vector<parallel::CalibrationResult> results;
};

// The runs of `runs_file` (catalog/measured_runs.hpp's format) calibrated: every accelerator they name, or only
// `gpu` when given (parallel::calibrate_runs).
CalibrationDocument calibration_document(const catalog::Catalog& catalog, const std::string& runs_file,
                                         const std::optional<std::string>& gpu);

Json calibration_json(const CalibrationDocument& document);
void to_json(Json& j, const CalibrationDocument& document);
// Reads back what calibration_json wrote (each accelerator's name and constants, the errors, the runs).
void from_json(const Json& j, CalibrationDocument& document);
std::string render_calibration(const CalibrationDocument& document);
// catalog YAML with one full accelerator entry per result (an overlay replaces an entry by name); checked
// to load before it is returned.
std::string calibration_overlay_yaml(const CalibrationDocument& document);

}  // namespace isoflop::doc
