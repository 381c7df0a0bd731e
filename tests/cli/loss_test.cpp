// End-to-end tests of `isoflop loss`: the Muennighoff README example, the default law, --all-laws.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "support/expect_close.hpp"
#include "support/run_cli.hpp"

using isoflop::test::run_cli;

TEST_CASE("loss reproduces Muennighoff's README example to 1e-9") {
  const auto r = run_cli("loss --params 6.34e9 --tokens 242e9 --unique-tokens 25e9 --law muennighoff-2023 -o json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["schema"] == "isoflop/loss/v1");
  CHECK(j["law"] == "muennighoff-2023");
  EXPECT_CLOSE(j["loss"].get<double>(), 2.2256440889984477, 1e-9);
}

TEST_CASE("loss names its default law, and --all-laws lists every loss law") {
  auto j = nlohmann::json::parse(run_cli("loss --params 70B --tokens 1.4T -o json").out);
  CHECK(j["law"] == "epoch-2024");
  CHECK(j["loss"].get<double>() > 1.8172);
  j = nlohmann::json::parse(run_cli("loss --params 70B --tokens 1.4T --all-laws -o json").out);
  REQUIRE(j["laws"].is_array());
  CHECK(j["laws"].size() == 5);
  CHECK(j["skipped"].size() == 3);
  const auto t = run_cli("loss --params 70B --tokens 1.4T --law chinchilla");
  CHECK(t.status == 0);
  CHECK(t.out.find("chinchilla") != std::string::npos);
}
