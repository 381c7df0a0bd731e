// A sweep's report written beside it: the document, its figure and the calibration overlay.
#include "validate/report_folder.hpp"

#include <filesystem>
#include <vector>

namespace isoflop::validate {

void check_report_files(const ReportRequest& request) {
  // The report's own files are replaced each time; neither may be an output the caller named as well.
  const std::filesystem::path folder = std::filesystem::path(request.inputs.sweep_dir) / kReportFolder;
  std::vector<PlannedOutput> planned{{(folder / "validation.json").string(), "report's JSON"}};
  planned.push_back(request.plot ? PlannedOutput{*request.plot, spelled(request.outputs.spell, "plot")}
                                 : PlannedOutput{(folder / "validation.svg").string(), "report's SVG"});
  if (request.save_calibration)
    planned.push_back({*request.save_calibration, spelled(request.outputs.spell, "save_calibration")});
  require_distinct_outputs(planned);
  if (request.plot) request.outputs.check(*request.plot, "plot");
  if (request.save_calibration) request.outputs.check(*request.save_calibration, "save_calibration");
}

doc::ValidationDocument write_report(const ReportRequest& request, const catalog::Catalog& catalog) {
  doc::ValidationDocument d = doc::validation_document(request.inputs, catalog);
  const std::filesystem::path folder = std::filesystem::path(request.inputs.sweep_dir) / kReportFolder;
  std::filesystem::create_directories(folder);
  // The folder is the sweep's report, rewritten each time: its files are replaced.
  NamedOutputs own = request.outputs;
  own.rules = OutputRules{true, ""};
  d.figure_file = request.plot.value_or((folder / "validation.svg").string());
  d.calibration_file = request.save_calibration;
  if (d.calibration_file)
    request.outputs.write(*d.calibration_file, doc::validation_calibration_yaml(d, catalog), "save_calibration");
  (request.plot ? request.outputs : own).write(*d.figure_file, doc::render_validation_figure(d), "plot");
  own.spell = nullptr;
  own.write((folder / "validation.json").string(), doc::Json(d).dump(2) + "\n", "report");
  return d;
}

}  // namespace isoflop::validate
