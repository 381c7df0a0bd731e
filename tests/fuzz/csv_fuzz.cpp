// Fuzz target: run tables (CSV) as `isoflop fit` reads them: the table itself, the runs with the default
// columns and the run selection, and a curves table joined to the runs by run id. A line "#--curves" splits
// the input into a runs part and a curves part.
#include <cmath>

#include "core/error.hpp"
#include "fit/csv_table.hpp"
#include "fit/runs.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fit = isoflop::fit;
  const std::string text = isoflop::fuzz::as_text(data, size);
  const size_t split = text.find("#--curves\n");
  const std::string runs_text = split == std::string::npos ? text : text.substr(0, split);
  const std::string curves_text = split == std::string::npos ? text : text.substr(split + 10);

  try {
    const fit::CsvTable table = fit::parse_csv(runs_text, "runs.csv");
    for (const auto& row : table.rows) ISOFLOP_FUZZ_CHECK(row.cells.size() == table.header.size());
  } catch (const isoflop::Error&) {
  }
  try {
    std::vector<fit::Run> runs = fit::parse_runs_csv(runs_text, "runs.csv");
    for (const auto& r : runs)
      ISOFLOP_FUZZ_CHECK(std::isfinite(r.params) && std::isfinite(r.tokens) && std::isfinite(r.flops) &&
                         std::isfinite(r.loss));
    fit::Selection selection;
    selection.drop_highest_loss = runs.empty() ? 0 : static_cast<int>(data[0] % 4);
    (void)fit::select_runs(std::move(runs), selection);
  } catch (const isoflop::Error&) {
  }
  try {
    (void)fit::parse_curves_csv(curves_text, "curves.csv", fit::RunColumns{}, runs_text, "runs.csv");
  } catch (const isoflop::Error&) {
  }
  return 0;
}
