// Every document read back and written again is the same JSON, byte for byte: over the real outputs of the
// canonical invocations in tests/golden/ (the binary is run, not a saved sample).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "doc/document.hpp"
#include "doc/registry.hpp"
#include "report/output.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

namespace isoflop {
namespace {

namespace fs = std::filesystem;

// The command line of tests/golden/NAME.args, with {tmp} (a fresh folder) and {root} (the source tree) replaced.
std::string golden_args(const fs::path& file, const fs::path& tmp) {
  std::ifstream in(file);
  std::string line, args;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("exit:", 0) == 0 || line.rfind("ignore:", 0) == 0 ||
        line.rfind("tolerance:", 0) == 0)
      continue;
    args = line;
  }
  for (size_t p = 0; (p = args.find("{tmp}", p)) != std::string::npos;) args.replace(p, 5, tmp.string());
  for (size_t p = 0; (p = args.find("{root}", p)) != std::string::npos;) args.replace(p, 6, ISOFLOP_SOURCE_DIR);
  return args;
}

TEST_CASE("every golden invocation's document decodes and encodes to the same bytes") {
  const fs::path dir = fs::path(ISOFLOP_SOURCE_DIR) / "tests" / "golden";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".args") continue;
    const std::string name = entry.path().stem().string();
    const fs::path tmp = test::fresh_temp_dir("roundtrip", name);
    const test::CliResult r = test::run_cli(golden_args(entry.path(), tmp));
    CAPTURE(name);
    CAPTURE(r.err);
    const doc::SourceDocument d = doc::parse_document(name, r.out);
    const doc::Json again = doc::reencode(d);
    CHECK(report::to_json_text(again) == r.out);
    // And once more through the struct: a fixed point.
    const doc::SourceDocument d2 = doc::parse_document(name, report::to_json_text(again));
    CHECK(report::to_json_text(doc::reencode(d2)) == r.out);
    ++checked;
  }
  CHECK(checked >= 1);
}

}  // namespace
}  // namespace isoflop
