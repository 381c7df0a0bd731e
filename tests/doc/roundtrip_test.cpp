// Every document read back and written again is the same JSON, byte for byte: over the real outputs of the
// canonical invocations in tests/golden/ (the binary is run, not a saved sample), as JSON and as YAML.
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

// Whether the invocation's output holds measured values (its "ignore:" lines name them).
bool measured(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("ignore:", 0) == 0) return true;
  return false;
}

TEST_CASE("every golden invocation's document decodes and encodes to the same bytes") {
  const fs::path dir = fs::path(ISOFLOP_SOURCE_DIR) / "tests" / "golden";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".args") continue;
    const std::string name = entry.path().stem().string();
    const fs::path tmp = test::fresh_temp_dir("roundtrip", name);
    const std::string args = golden_args(entry.path(), tmp);
    const test::CliResult r = test::run_cli(args);
    CAPTURE(name);
    CAPTURE(r.err);
    const doc::SourceDocument d = doc::parse_document(name, r.out);
    const doc::Json again = doc::reencode(d);
    CHECK(report::to_json_text(again) == r.out);
    // And once more through the struct: a fixed point.
    const doc::SourceDocument d2 = doc::parse_document(name, report::to_json_text(again));
    CHECK(report::to_json_text(doc::reencode(d2)) == r.out);
    // As -o yaml writes it, the same document reads back through the same reader (a run with measured values,
    // such as train's timings, gives other values each time: only its kind is compared).
    const std::string yaml_args = golden_args(entry.path(), test::fresh_temp_dir("roundtrip-yaml", name));
    const size_t json = yaml_args.find(" -o json");
    const test::CliResult y = test::run_cli(yaml_args.substr(0, json) + " -o yaml" + yaml_args.substr(json + 8));
    const doc::SourceDocument yd = doc::parse_document(name + ".yaml", y.out);
    CHECK(yd.kind == d.kind);
    if (!measured(entry.path())) CHECK(report::to_json_text(doc::reencode(yd)) == r.out);
    ++checked;
  }
  CHECK(checked >= 1);
}

TEST_CASE("an interaction law's gamma survives a document's round trip: sweep, catalog and optimal") {
  // gamma is written only when it is not 1, and read back whenever it is there.
  const fs::path dir = test::fresh_temp_dir("roundtrip", "gamma");
  const std::string law = " --law-params 1.8172,482.01,2085.43,0.3478,0.3658,0.6";
  const test::CliResult emit =
      test::run_cli("validate --flops 1e21 --preset smoke -q --emit " + (dir / "sw").string() + law);
  REQUIRE(emit.status == 0);
  // Designing the same sweep into its folder again compares it with the sweep.json read back: the same.
  const test::CliResult again =
      test::run_cli("validate --flops 1e21 --preset smoke -q --emit " + (dir / "sw").string() + law);
  CHECK(again.status == 0);
  CAPTURE(again.err);
  std::ifstream in(dir / "sw" / "sweep.json");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const doc::SourceDocument sweep = doc::parse_document("sweep.json", text);
  CHECK(report::to_json_text(doc::reencode(sweep)).find("\"gamma\": 0.6") != std::string::npos);
  // A catalog law with gamma, listed and read back.
  fs::create_directories(dir / "laws");
  std::ofstream(dir / "laws" / "laws.yaml") << "laws:\n  - {name: neck, kind: parametric, E: 1.7, A: 400, B: 400, "
                                               "alpha: 0.3, beta: 0.3, gamma: 0.5, source: s}\n";
  const test::CliResult listed = test::run_cli("catalog laws neck -o json --catalog " + (dir / "laws").string());
  REQUIRE(listed.status == 0);
  const doc::SourceDocument cat = doc::parse_document("catalog.json", listed.out);
  CHECK(report::to_json_text(doc::reencode(cat)) == listed.out);
  CHECK(listed.out.find("\"gamma\": 0.5") != std::string::npos);
}

}  // namespace
}  // namespace isoflop
