// End-to-end tests of the command-line frame: help, version, dispatch errors, exit statuses, catalog.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_cli.hpp"

using namespace isoflop::test;

namespace {
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST_CASE("help and version") {
  auto r = run_cli("--help");
  CHECK(r.status == 0);
  CHECK(r.out.find("usage: isoflop <command>") != std::string::npos);
  CHECK(r.out.find("catalog") != std::string::npos);
  r = run_cli("--version");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("isoflop ", 0) == 0);
  r = run_cli("help catalog");
  CHECK(r.status == 0);
  CHECK(r.out.find("usage: isoflop catalog") != std::string::npos);
  CHECK(r.out.find("Examples:") != std::string::npos);
  CHECK(run_cli("catalog --help").out == r.out);
  r = run_cli("");
  CHECK(r.status == 2);  // no command is a usage error
}

TEST_CASE("unknown commands and options get one line with a suggestion, exit 2") {
  auto r = run_cli("catalgo");
  CHECK(r.status == 2);
  CHECK(r.err == "isoflop: error: unknown command 'catalgo' (did you mean 'catalog'?); accepted: " +
                     r.err.substr(r.err.find("accepted: ") + 10));
  CHECK(lines(r.err) == 1);
  r = run_cli("catalog --formt json");
  CHECK(r.status == 2);
  CHECK(r.err.find("unknown option '--formt' (did you mean '--format'?)") != std::string::npos);
  CHECK(lines(r.err) == 1);
  r = run_cli("catalog -o xml");
  CHECK(r.status == 2);
  CHECK(r.err == "isoflop: error: --format: 'xml' is not one of table|json|yaml|csv (did you mean 'yaml'?)\n");
  r = run_cli("catalog --format");
  CHECK(r.status == 2);
  CHECK(lines(r.err) == 1);
  r = run_cli("help nosuch");
  CHECK(r.status == 2);
  r = run_cli("catalog -q -v");
  CHECK(r.status == 2);
}

TEST_CASE("catalog lists entries with sources in every format") {
  auto r = run_cli("catalog hardware dgx-a100 -o json");
  CHECK(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "isoflop/catalog/v2");
  REQUIRE(j["entries"].size() == 1);
  CHECK(j["entries"][0]["section"] == "nodes");
  CHECK(j["entries"][0]["gpus_per_node"] == 8);
  CHECK(j["entries"][0]["max_power_kw"].get<double>() == 6.5);
  CHECK_FALSE(j["entries"][0]["source"].get<std::string>().empty());
  r = run_cli("catalog grids us -o json");
  CHECK(nlohmann::json::parse(r.out)["entries"][0]["intensity_kg_per_kwh"].get<double>() == 0.429);
  r = run_cli("catalog grids -o csv");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("inputs.kind,inputs.name,inputs.catalog_dir,entries.section,entries.name,", 0) == 0);
  CHECK(r.out.find("\ngrids,,,grids,us,") != std::string::npos);
  r = run_cli("catalog models -o yaml");
  CHECK(r.status == 0);
  CHECK(r.out.find("schema: isoflop/catalog/v2") != std::string::npos);
  r = run_cli("catalog laws-and-stuff");
  CHECK(r.status == 2);
  r = run_cli("catalog hardware a100-sxm4-80g");
  CHECK(r.status == 2);
  CHECK(r.err.find("did you mean 'a100-sxm4-80gb'") != std::string::npos);
}

TEST_CASE("a malformed user catalog is rejected at load with file:line, exit 2") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "isoflop-cli-bad-catalog";
  fs::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << "pue:\n  - {name: p, pue: -1.2, source: s}\n";
  auto r = run_cli("catalog --catalog " + dir.string());
  CHECK(r.status == 2);
  CHECK(r.err.find("bad.yaml:2: pue preset 'p' field 'pue': must be positive") != std::string::npos);
  r = run_cli("catalog", "ISOFLOP_CATALOG=" + dir.string());
  CHECK(r.status == 2);
  fs::remove_all(dir);
  r = run_cli("catalog --catalog /nonexistent/dir");
  CHECK(r.status == 2);
  CHECK(r.err.find("is not a readable directory") != std::string::npos);
}

TEST_CASE("catalog shows one entry in words: nested values as dotted keys, lists of records as a table") {
  const auto trainer = run_cli("catalog trainers deepspeed");
  REQUIRE(trainer.status == 0);
  CHECK(trainer.out.find("{") == std::string::npos);  // no JSON in the page
  CHECK(trainer.out.find("rules.zero_stages.stages") != std::string::npos);
  CHECK(trainer.out.find("0, 1, 2, 3\n") != std::string::npos);
  CHECK(trainer.out.find("rules.zero_with_pipeline.max_stage") != std::string::npos);
  CHECK(trainer.out.find("PipelineEngine asserts the ZeRO stage is below 2") != std::string::npos);
  // The listing says what isoflop's file for a trainer cannot say of its rules, as plan and layout apply them.
  const auto listing = run_cli("catalog trainers");
  CHECK(listing.out.find("NeMo v2.4.0: ZeRO 0/1/3, PP uneven, VPP, CP, EP; its nemo.yaml as isoflop writes it: even "
                         "stages, ZeRO 0/1") != std::string::npos);
  CHECK(listing.out.find("its ds_config.json as isoflop writes it: even stages, gradients in bf16 ") !=
        std::string::npos);
  CHECK(listing.out.find("core_v0.13.0: ZeRO 0/1/3 (ZeRO-3 untied only), PP uneven") != std::string::npos);
  // Chinchilla's Approach 1 table (Hoffmann et al. 2022 Table 3) as rows, counts in scientific notation.
  const auto law = run_cli("catalog laws chinchilla-approach1");
  REQUIRE(law.status == 0);
  CHECK(law.out.find("  rows:\n") != std::string::npos);
  const size_t row = law.out.find("6.7e10");
  REQUIRE(row != std::string::npos);
  const std::string line = law.out.substr(row, law.out.find('\n', row) - row);
  CHECK(line.find("5.76e23") != std::string::npos);
  CHECK(line.find("1.5e12") != std::string::npos);
}
