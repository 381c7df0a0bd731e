// End-to-end tests of `isoflop plan`: the 420-node DGX A100 month, self-consistent utilisation, the
// JSON sections, the figure, and bad budgets.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/run_cli.hpp"

using isoflop::test::run_cli;

TEST_CASE("plan: 3,360 A100s for 30 days, self-consistent") {
  const auto r = run_cli("plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema"] == "isoflop/plan/v1");
  for (const char* key : {"budget", "allocation", "architecture", "layouts", "cost", "band"}) CHECK(doc.contains(key));
  const double flops = doc["budget"]["flops"].get<double>();
  const double mfu = doc["budget"]["mfu"].get<double>();
  // The budget is what the cluster delivers at the best layout's MFU: C = n · peak · MFU · t.
  CHECK(std::fabs(flops / (3360 * 312e12 * 30 * 86400.0) / mfu - 1) < 2e-3);
  CHECK(std::fabs(doc["cost"]["days"].get<double>() - 30) < 0.1);
  // C ≈ 6ND for the chosen allocation.
  const double n = doc["allocation"]["params"].get<double>(), d = doc["allocation"]["tokens"].get<double>();
  CHECK(std::fabs(6 * n * d / doc["allocation"]["flops"].get<double>() - 1) < 1e-6);
  CHECK(std::fabs(doc["architecture"]["params"].get<double>() / n - 1) < 0.02);
  CHECK(doc["layouts"][0]["memory_gib"].get<double>() < 80);
  CHECK(doc["layouts"][0]["tp"].get<int>() <= 8);
  // 420 DGX A100 at 6.5 kW: 2.73 MW.
  CHECK(std::fabs(doc["cost"]["power_kw"].get<double>() - 2730) < 1e-6);
  CHECK(doc["band"].size() >= 5);
  // The 4Ms what-if in the cost section: baseline, the four levers, all together; none above the baseline.
  const auto& whatif = doc["cost"]["whatif"];
  REQUIRE(whatif.size() == 6);
  CHECK(whatif[0]["lever"] == "baseline");
  CHECK(whatif[5]["lever"] == "all");
  for (const auto& row : whatif) {
    CHECK(row["energy_kwh"].get<double>() <= doc["cost"]["energy_kwh"].get<double>() * (1 + 1e-12));
    CHECK(row["co2e_kg"].get<double>() <= doc["cost"]["co2e_kg"].get<double>() * (1 + 1e-12));
  }
  CHECK(std::fabs(whatif[0]["energy_kwh"].get<double>() - doc["cost"]["energy_kwh"].get<double>()) < 1e-6);
  CHECK(doc["cost"]["energy_methods"].size() == 3);
}

TEST_CASE("plan with a FLOPs budget and the readable report") {
  const auto r = run_cli("plan --flops 5.76e23 --gpu a100-sxm4-80gb --gpus 1024 --law chinchilla");
  REQUIRE(r.status == 0);
  for (const char* section : {"Budget", "Allocation (chinchilla)", "Band across laws", "Architecture", "Layouts", "Cost",
                              "Energy by method", "4Ms what-if", "mechanization", "map"})
    CHECK(r.out.find(section) != std::string::npos);
  CHECK(r.out.find("32.2B") != std::string::npos);  // the rounded Chinchilla optimum for Gopher's budget
}

TEST_CASE("plan --plot writes a labelled SVG") {
  const std::string path = (std::filesystem::temp_directory_path() / "isoflop-plan-test.svg").string();
  std::filesystem::remove(path);
  const auto r = run_cli("plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 -q --plot " + path);
  REQUIRE(r.status == 0);
  std::ifstream in(path);
  std::stringstream svg;
  svg << in.rdbuf();
  CHECK(svg.str().rfind("<?xml", 0) == 0);
  CHECK(svg.str().find("parameters N") != std::string::npos);
  CHECK(svg.str().find("predicted loss") != std::string::npos);
  CHECK(svg.str().find("optimum") != std::string::npos);
  CHECK(svg.str().find("NaN") == std::string::npos);
  std::filesystem::remove(path);
}

TEST_CASE("plan bad input exits 2, nothing written") {
  const std::string base = "plan --gpu a100-sxm4-80gb --gpus 3360 ";
  for (const char* args : {"", "--days 30 --flops 1e24", "--days -3", "--days nan", "--flops 70X", "--budget-usd 1M",
                           "--days 30 --pue 0.8", "--days 30 --grid atlantis", "--days 30 --law chinchila",
                           "--days 30 --family gpt-9", "--time 30", "--days 30 --whatif-gpu tpu-v9",
                           "--days 30 --whatif-grid atlantis", "--days 30 --whatif-model-factor 0",
                           "--days 30 --energy-method measured", "--days 30 --power-w -330"}) {
    INFO(args);
    const auto r = run_cli(base + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  const auto r = run_cli("plan --days 30 --gpu a100-sxm4-80gb --gpus 3364");
  CHECK(r.status == 2);
}

TEST_CASE("plan with the TDP energy method, a pinned machine and embodied carbon") {
  const auto r = run_cli("plan --flops 5.76e23 --gpu a100-sxm4-80gb --gpus 1024 --energy-method tdp --embodied "
                         "--whatif-gpu h100-sxm5-80gb --pue 1.4 -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["cost"]["energy_method"] == "tdp");
  CHECK(std::fabs(doc["cost"]["power_kw"].get<double>() - 1024 * 0.637) < 1e-9);
  CHECK(doc["cost"]["embodied"]["co2e_kg"].get<double>() > 0);
  const auto& machine = doc["cost"]["whatif"][2];
  CHECK(machine["change"] == "a100-sxm4-80gb -> h100-sxm5-80gb");
  CHECK(machine["energy_factor"].get<double>() > 1);
  CHECK(std::fabs(doc["cost"]["whatif"][3]["energy_factor"].get<double>() - 1.4 / 1.1) < 1e-12);
}
