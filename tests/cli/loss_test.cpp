// End-to-end tests of `isoflop loss`: the Muennighoff README example, the default law, --all-laws.
#include <doctest/doctest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_json.hpp"
#include "support/expect_close.hpp"
#include "support/run_cli.hpp"

using namespace isoflop::test;

TEST_CASE("loss reproduces Muennighoff's README example to 1e-9") {
  const auto doc = run_json("loss --params 6.34e9 --tokens 242e9 --unique-tokens 25e9 --law muennighoff-2023 -o json");
  CHECK(doc["schema"] == "isoflop/loss/v2");
  REQUIRE(doc["losses"].size() == 1);
  const auto& j = doc["losses"][0];
  CHECK(j["law"] == "muennighoff-2023");
  EXPECT_CLOSE(j["loss"].get<double>(), 2.2256440889984477, 1e-9);
  EXPECT_CLOSE(j["epochs"].get<double>(), 242.0 / 25.0, 1e-12);
  EXPECT_CLOSE(j["flops"].get<double>(), 6 * 6.34e9 * 242e9, 1e-12);
}

TEST_CASE("loss names its default law, and --all-laws lists every loss law") {
  auto j = nlohmann::json::parse(run_cli("loss --params 70B --tokens 1.4T -o json").out);
  CHECK(j["losses"][0]["law"] == "epoch-2024");
  CHECK(j["losses"][0]["loss"].get<double>() > 1.8172);
  CHECK(j["losses"][0]["unique_tokens"].is_null());
  j = nlohmann::json::parse(run_cli("loss --params 70B --tokens 1.4T --all-laws -o json").out);
  REQUIRE(j["losses"].is_array());
  CHECK(j["losses"].size() == 5);
  CHECK(j["skipped"].size() == 3);
  for (const auto& l : j["losses"])
    if (l["law"] == "chinchilla") EXPECT_CLOSE(l["loss"].get<double>(), 1.93665, 1e-5);  // 1.69 + A/N^α + B/D^β
  const auto t = run_cli("loss --params 70B --tokens 1.4T --law chinchilla");
  CHECK(t.status == 0);
  CHECK(t.out.find("chinchilla") != std::string::npos);
  CHECK(t.out.find("parameters     70B (total)\n") != std::string::npos);
  // One law alone says which N it counts: Kaplan et al. count non-embedding parameters.
  const auto kaplan = run_cli("loss --params 70B --tokens 1.4T --law kaplan-2020");
  CHECK(kaplan.out.find("parameters     70B (non-embedding)\n") != std::string::npos);
}

TEST_CASE("loss --all-laws says which N each law counts and what it was fitted on, and notes the mix") {
  const auto j = nlohmann::json::parse(run_cli("loss --params 70B --tokens 1.4T --all-laws -o json").out);
  std::map<std::string, std::pair<std::string, std::string>> by_law;
  for (const auto& l : j["losses"])
    by_law[l["law"]] = {l["parameters"].get<std::string>(), l["dataset"].get<std::string>()};
  // Kaplan et al. 2020 count non-embedding N on WebText2; Hoffmann et al. 2022 total N on MassiveText.
  CHECK(by_law.at("kaplan-2020") == std::pair<std::string, std::string>{"non-embedding", "WebText2"});
  CHECK(by_law.at("chinchilla") == std::pair<std::string, std::string>{"total", "MassiveText"});
  const auto table = run_cli("loss --params 70B --tokens 1.4T --all-laws");
  CHECK(table.out.find("note: these laws were fitted on different data") != std::string::npos);
  CHECK(table.out.find("note: N is non-embedding parameters for some laws") != std::string::npos);
}

TEST_CASE("loss with unique tokens under a law without its own decay says where the decay comes from") {
  const auto doc = run_json("loss --params 34.73B --tokens 479.9B --unique-tokens 100B --law chinchilla -o json");
  const auto& j = doc["losses"][0];
  CHECK(j["note"].get<std::string>().find("repeated tokens decay with R_D* = 15.3878 from muennighoff-2023") !=
        std::string::npos);
  // The decay raises the loss over the same run on fresh data.
  const auto fresh = run_json("loss --params 34.73B --tokens 479.9B --law chinchilla -o json");
  CHECK(j["loss"].get<double>() > fresh["losses"][0]["loss"].get<double>());
  const auto page = run_cli("loss --params 34.73B --tokens 479.9B --unique-tokens 100B --law chinchilla");
  CHECK(page.out.find("  note: ") != std::string::npos);
  CHECK(page.out.find("from muennighoff-2023") != std::string::npos);
}
