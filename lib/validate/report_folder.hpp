// `validate report DIR` as one call: the verdict document of a sweep folder, written into DIR/report/ (the
// sweep's own folder, rewritten each time) beside its figure, and the calibration overlay where one is asked for.
#pragma once

#include <optional>
#include <string>

#include "core/output_path.hpp"
#include "validate/report_document.hpp"

namespace isoflop::validate {

inline constexpr const char* kReportFolder = "report";  // DIR/report/validation.json and validation.svg

struct ReportRequest {
  doc::ValidationInputs inputs;                 // inputs.sweep_dir names the folder
  std::optional<std::string> plot;              // the figure here instead of DIR/report/validation.svg
  std::optional<std::string> save_calibration;  // the calibration overlay (catalog YAML) here
  NamedOutputs outputs;                         // how `plot` and `save_calibration` are written; its
                                                // on_written hears of every file, the report's own too
};

// Checks `plot` and `save_calibration` against core/output_path.hpp's rules before the work that produces
// them: an InputError naming the field (as spelled) and the path.
void check_report_files(const ReportRequest& request);

// Builds the document (doc::validation_document) and writes, in this order, the calibration overlay (when
// asked for), the figure, and DIR/report/validation.json; DIR/report is created when missing and its own
// files are replaced. Returns the document with figure_file and calibration_file set.
doc::ValidationDocument write_report(const ReportRequest& request, const catalog::Catalog& catalog);

}  // namespace isoflop::validate
