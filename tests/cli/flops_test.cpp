// End-to-end tests of `isoflop flops`: conventions, JSON fields, MoE, recompute, bad input.
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

TEST_CASE("flops: ST-MoE-32B costs about a 32B dense model per token in the chinchilla and megatron conventions") {
  for (const char* convention : {"chinchilla", "megatron --recompute none"}) {
    INFO(convention);
    const auto r = run_cli(std::string("flops --arch st-moe-32b --tokens 1T -o json --flops-convention ") + convention);
    REQUIRE(r.status == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(std::fabs(doc["flops_per_token"].get<double>() / (6 * 32e9) - 1) < 0.1);
    CHECK(doc["breakdown"].contains("experts"));
    CHECK(doc["breakdown"].contains("router"));
    // Router: 3 × 2 · d_model · experts per token in each of the 12 MoE layers.
    CHECK(std::fabs(doc["breakdown"]["router"].get<double>() / (1e12 * 12 * 3 * 2 * 5120 * 64) - 1) < 1e-12);
    CHECK(doc["params_breakdown"]["total"].get<double>() > 250e9);
  }
}

TEST_CASE("flops --recompute: hardware FLOPs grow none < selective < full, model FLOPs do not") {
  double previous = 0, model = 0;
  for (const char* mode : {"none", "selective", "full"}) {
    INFO(mode);
    const auto r = run_cli(std::string("flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla -o json --recompute ") + mode);
    REQUIRE(r.status == 0);
    const auto doc = nlohmann::json::parse(r.out);
    CHECK(doc["recompute"] == mode);
    CHECK(doc["flops"].get<double>() > previous);
    CHECK(std::fabs(doc["flops"].get<double>() - doc["model_flops"].get<double>() - doc["breakdown"]["recompute"].get<double>()) <=
          1e-9 * doc["flops"].get<double>());
    if (model > 0) CHECK(doc["model_flops"].get<double>() == model);
    model = doc["model_flops"].get<double>();
    previous = doc["flops"].get<double>();
  }
  // 6nd with full recompute is Narayanan eq. 4's 8·N·D.
  const auto e = run_cli("flops --params 175B --tokens 300B --recompute full -o json");
  REQUIRE(e.status == 0);
  CHECK(std::fabs(nlohmann::json::parse(e.out)["flops"].get<double>() / (8 * 175e9 * 300e9) - 1) < 1e-12);
  // megatron defaults to full (eq. 3); chinchilla to none (App. F).
  const auto m = run_cli("flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron --recompute selective -o json");
  REQUIRE(m.status == 0);
  CHECK(nlohmann::json::parse(m.out)["flops"].get<double>() > 1.2701e19);
  CHECK(nlohmann::json::parse(m.out)["flops"].get<double>() < 1.6926e19);
}

TEST_CASE("flops bad input exits 2") {
  for (const char* args : {"", "--arch mt-nlg-530b", "--params 70B --arch gpt3-175b --tokens 1T", "--params -1 --tokens 1T",
                           "--params 70B --tokens 1T --flops-convention chinchilla", "--params 70B --tokens 1T --flops-convention 7nd",
                           "--arch gpt4 --tokens 1T", "--params 70B --tokens 1T --global-batch 8",
                           "--params 70B --tokens 1T --recompute selective", "--arch chinchilla-70b --tokens 1T --recompute partial"}) {
    INFO(args);
    const auto r = run_cli(std::string("flops ") + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
