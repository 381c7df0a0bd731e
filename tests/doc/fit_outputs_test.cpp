// Tests for doc::check_fit_outputs and doc::write_fit_outputs: the fit's files checked before the work (its
// inputs never replaced), written after it into a catalog folder made when missing, named as the caller spells
// the fields.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "doc/fit_document.hpp"
#include "support/temp_files.hpp"

namespace isoflop::doc {
namespace {

namespace fs = std::filesystem;

std::string flag_like(std::string_view field) { return "--" + std::string(field); }

TEST_CASE("the bootstrap's progress line fills 30 columns in proportion") {
  CHECK(fit_progress_bar(0, 40) == "bootstrap [" + std::string(30, ' ') + "] 0/40");
  CHECK(fit_progress_bar(4, 40) == "bootstrap [###" + std::string(27, ' ') + "] 4/40");
  CHECK(fit_progress_bar(40, 40) == "bootstrap [" + std::string(30, '#') + "] 40/40");
}

TEST_CASE("a fit's law and figure: checked before the fit, written after it, never over an input") {
  const fs::path dir = test::fresh_temp_dir("fit-outputs", "law");
  std::vector<std::string> written;
  const NamedOutputs outputs{OutputRules{false, "no"}, flag_like,
                             [&](const OutputTarget& t) { written.push_back(t.path); }};
  fit::FitRequest r;
  r.runs_file = ISOFLOP_SOURCE_DIR "/share/examples/runs.csv";
  r.grid = "coarse";
  r.threads = 1;
  r.save_law = "mine";
  r.catalog_dir = (dir / "catalog").string();
  fit::FitRequest over_input = r;
  over_input.plot = r.runs_file;
  CHECK_THROWS_WITH_AS(check_fit_outputs(over_input, outputs),
                       ("--plot: '" + r.runs_file + "' is one of this command's inputs; name another file").c_str(),
                       InputError);
  r.plot = (dir / "fit.svg").string();
  CHECK_NOTHROW(check_fit_outputs(r, outputs));  // the catalog folder is made later: its law file is new
  const FitDocument d = fit_document(r);
  REQUIRE(d.saved_law);
  write_fit_outputs(r, d, outputs);
  const std::string law_file = (dir / "catalog" / "mine.yaml").string();
  CHECK(d.saved_law->file == law_file);
  CHECK(written == std::vector<std::string>{law_file, *r.plot});
  CHECK(test::read_file(law_file) == fit_law_yaml(d));
  CHECK(test::read_file(*r.plot) == render_fit_figure(d));
  // Again: both files exist now, and the caller's rules keep them; the figure is checked first.
  CHECK_THROWS_WITH_AS(check_fit_outputs(r, outputs), ("--plot: " + *r.plot + " exists; no").c_str(), InputError);
  r.plot = std::nullopt;
  CHECK_THROWS_WITH_AS(check_fit_outputs(r, outputs), ("--save_law: " + law_file + " exists; no").c_str(), InputError);
}

}  // namespace
}  // namespace isoflop::doc
