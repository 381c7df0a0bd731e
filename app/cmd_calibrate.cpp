// isoflop calibrate RUNS.yaml: fit an accelerator's step-time efficiency constants to measured runs and
// save them as a catalog overlay.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "core/input_file.hpp"
#include "core/output_path.hpp"
#include "doc/calibration_document.hpp"

namespace isoflop::app {

int run_calibrate(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("calibrate"), args, {declared_options("calibrate")}, {"runs"});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const std::string file = get_string(vm, "runs").value_or("");
  if (file.empty()) throw InputError("calibrate: missing RUNS.yaml; see 'isoflop help calibrate'");
  const auto save = get_string(vm, "save-calibration");
  note_input(file);
  if (save) check_output_file(parsed->common, *save, "--save-calibration");
  const catalog::Catalog catalog = load_catalog(parsed->common);
  const auto runs = catalog::parse_measured_runs(read_input_text(file), input_name(file), catalog);
  const auto gpu = get_string(vm, "gpu");
  doc::CalibrationDocument document{input_name(file), gpu, parallel::calibrate_runs(catalog, runs, gpu)};
  if (save) write_output_file(parsed->common, *save, doc::calibration_overlay_yaml(document), "--save-calibration");
  write_document(parsed->common, doc::calibration_json(document), [&] { return doc::render_calibration(document); });
  return 0;
}

}  // namespace isoflop::app
