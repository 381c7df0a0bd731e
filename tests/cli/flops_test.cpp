// End-to-end tests of `isoflop flops`: conventions, JSON fields, bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "support/run_cli.hpp"

using isoflop::test::run_cli;

TEST_CASE("flops by convention") {
  auto r = run_cli("flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron -o json");
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema"] == "isoflop/flops/v1");
  for (const char* key : {"convention", "params", "tokens", "flops", "flops_per_token", "breakdown"}) CHECK(doc.contains(key));
  CHECK(std::fabs(doc["flops"].get<double>() / 1.6926e19 - 1) < 1e-3);
  CHECK(std::fabs(doc["breakdown"]["model_flops"].get<double>() / 1.2701e19 - 1) < 1e-3);
  r = run_cli("flops --params 70B --tokens 1.4T -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(nlohmann::json::parse(r.out)["flops"].get<double>() / 5.88e23 - 1) < 1e-12);
  r = run_cli("flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla -o json");
  REQUIRE(r.status == 0);
  doc = nlohmann::json::parse(r.out);
  CHECK(doc["breakdown"].contains("dense"));
  CHECK(doc["flops"].get<double>() > 5.5e23);
}

TEST_CASE("flops of an MoE model follow its active parameters") {
  const auto r = run_cli("flops --arch st-moe-32b --tokens 1T -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const double active = doc["params_breakdown"]["active"].get<double>();
  CHECK(active < doc["params_breakdown"]["total"].get<double>());
  CHECK(std::fabs(doc["flops_per_token"].get<double>() / (6 * active) - 1) < 1e-12);
}

TEST_CASE("flops bad input exits 2") {
  for (const char* args : {"", "--arch mt-nlg-530b", "--params 70B --arch gpt3-175b --tokens 1T", "--params -1 --tokens 1T",
                           "--params 70B --tokens 1T --flops-convention chinchilla", "--params 70B --tokens 1T --flops-convention 7nd",
                           "--arch gpt4 --tokens 1T", "--params 70B --tokens 1T --global-batch 8"}) {
    INFO(args);
    const auto r = run_cli(std::string("flops ") + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
