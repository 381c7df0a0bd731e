// isoflop calibrate RUNS.yaml: fit an accelerator's step-time efficiency constants to measured runs and
// save them as a catalog overlay.
#include <cstdio>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
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
  const NamedOutputs outputs = named_outputs(parsed->common);
  if (save) outputs.check(*save, "save_calibration");
  const catalog::Catalog catalog = load_catalog(parsed->common);
  const doc::CalibrationDocument document = doc::calibration_document(catalog, file, get_string(vm, "gpu"));
  if (!parsed->common.quiet)
    for (const auto& r : document.results) {
      if (!r.underdetermined.empty())
        std::fprintf(stderr, "isoflop: note: %s: %s\n", r.accelerator.name.c_str(), r.underdetermined.c_str());
      for (const auto& bound : r.at_bounds)
        std::fprintf(stderr,
                     "isoflop: note: %s: %s: the runs lie outside what the step-time model explains there (check "
                     "their measured figures); the fit is the bound's, not theirs\n",
                     r.accelerator.name.c_str(), bound.c_str());
    }
  if (save) outputs.write(*save, doc::calibration_overlay_yaml(document), "save_calibration");
  write_document(parsed->common, doc::calibration_json(document), [&] { return doc::render_calibration(document); });
  return 0;
}

}  // namespace isoflop::app
