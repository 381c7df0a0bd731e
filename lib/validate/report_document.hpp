// The validation document ("isoflop/validation/v2", a document kind kept beside the report since it needs
// lib/validate, which is built on lib/doc): `validate report DIR` — a sweep's runs read back, the
// Approach 2 and 3 fits, each comparison with the plan's law, the source's floor and the step-time model, and
// the verdict.
//
//   {"schema", "inputs": {"sweep_dir", "tolerances": {a, tokens_per_param, params, floor, speed},
//    "bootstrap_resamples", "seed", "grid", "cpu_memory_bandwidth_bytes_per_s"}, "plan": {"law", "a",
//    "budget_flops", "params_opt"}, "preset", "source", "runs": [{id, budget, budget_flops, status, failure, params,
//    tokens, loss, floor, floor_se, tokens_per_s, mfu, peak_flops, device, accelerator, batch, shape}],
//    "fit": {"runs", "finished", "failed", "failures", "approach2", "approach2_error", "approach2_intervals",
//    "bootstrap_resamples", "bootstrap_failed", "budgets_outside", "approach3", "approach3_intervals",
//    "approach3_bootstrap_failed", "a_difference", "approach3_note", "interaction": {"law", "intervals",
//    "bootstrap_failed", "a_difference", "choice": {chosen, folds, held_out_runs, rms_chinchilla,
//    rms_interaction}}|null, "interaction_note", "floor",
//    "floor_se", "comparisons": [...], "speed": [...]}, "calibration_file", "figure_file", "verdict"}
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "doc/document.hpp"
#include "validate/report.hpp"

namespace isoflop::doc {

struct ValidationInputs {
  std::string sweep_dir;
  validate::Tolerances tolerances;
  int bootstrap_resamples = 200;
  std::uint64_t seed = 0;
  std::string grid = "chinchilla";  // Approach 3's starts (fit's --grid)
  // Main memory bandwidth of the CPU for the step-time model's memory-bound parts: two channels of DDR4-3200
  // (JEDEC JESD79-4: 3,200 MT/s × 8 bytes × 2 channels = 51.2 GB/s), what a 2-core cloud host usually has.
  double cpu_memory_bandwidth_bytes_per_s = 51.2e9;
  bool operator==(const ValidationInputs&) const = default;
};

struct ValidationDocument {
  ValidationInputs inputs;
  validate::PlanReference plan;
  std::string preset;                    // the sweep's preset
  std::string source;                    // its data source
  std::vector<validate::ReportRun> runs;
  validate::ValidationReport report;
  std::optional<std::string> calibration_file;  // --save-calibration
  std::optional<std::string> figure_file;       // --plot
};

// Reads DIR/sweep.json and each run's results.json and builds the report. A DIR without sweep.json, a sweep.json
// or results.json that is not its document, or a result document whose job is not the sweep's run is an
// InputError naming the file; a run without a finished result is a failed run in the report.
ValidationDocument validation_document(const ValidationInputs& inputs, const catalog::Catalog& catalog);

// The calibration overlay (catalog YAML, doc::calibration_overlay_yaml) fitted to the runs' measured speed.
std::string validation_calibration_yaml(const ValidationDocument& d, const catalog::Catalog& catalog);

void to_json(Json& j, const ValidationDocument& d);
void from_json(const Json& j, ValidationDocument& d);

// The human page: runs, fits, comparisons with their tolerances, speed per run, verdict.
std::string render_validation(const ValidationDocument& d);

// The figure (Hoffmann et al. 2022, Fig. 3 style): the IsoFLOP curves with their fitted parabolas and minima,
// and N_opt(C) from the budgets' minima extrapolated to the plan's budget, against the plan's N_opt.
std::string render_validation_figure(const ValidationDocument& d);

}  // namespace isoflop::doc
