// End-to-end tests of `isoflop optimal`: JSON fields, the band, the acceptance numbers, and bad input.
#include <doctest/doctest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_json.hpp"
#include "support/expect_close.hpp"
#include "support/run_cli.hpp"

using namespace isoflop::test;

TEST_CASE("optimal --flops 5.76e23 --law chinchilla -o json: one allocation with the paper's numbers") {
  const auto doc = run_json("optimal --flops 5.76e23 --law chinchilla -o json");
  CHECK(doc["schema"] == "isoflop/optimal/v2");
  REQUIRE(doc["allocations"].size() == 1);
  CHECK(doc["skipped"].empty());
  const auto& j = doc["allocations"][0];
  CHECK(j["law"] == "chinchilla");
  CHECK(j["method"] == "closed-form");
  EXPECT_CLOSE(j["flops"].get<double>(), 5.76e23, 1e-12);
  EXPECT_CLOSE(j["params"].get<double>(), 3.219e10, 1e-3);
  EXPECT_CLOSE(j["tokens"].get<double>(), 2.982e12, 1e-3);
  EXPECT_CLOSE(j["tokens_per_param"].get<double>(), 92.65, 1e-3);
  EXPECT_CLOSE(j["loss"].get<double>(), 1.9307, 1e-3);
  EXPECT_CLOSE(6.0 * j["params"].get<double>() * j["tokens"].get<double>(), 5.76e23, 1e-12);  // C = 6ND
  CHECK(j["unique_tokens"].is_null());
  CHECK(j["compute_optimal"].is_null());
  CHECK(doc["inputs"]["flops"].get<double>() == 5.76e23);
  CHECK(doc["inputs"]["law"] == "chinchilla");
  CHECK(doc["inputs"]["all_laws"] == false);
}

TEST_CASE("optimal defaults to epoch-2024 and names it — --all-laws gives an array of laws") {
  const auto r = run_cli("optimal --flops 5.88e23 -o json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(r.out)["allocations"][0];
  CHECK(j["law"] == "epoch-2024");
  EXPECT_CLOSE(j["params"].get<double>(), 7.302e10, 1e-3);
  const auto b = run_json("optimal --flops 5.76e23 --all-laws -o json");
  REQUIRE(b["allocations"].is_array());
  // The total-parameter laws; Kaplan and DeepSeek (non-embedding) are skipped with the reason.
  CHECK(b["allocations"].size() == 6);
  CHECK(b["skipped"].size() == 2);
  CHECK(b["inputs"]["all_laws"] == true);
  for (const auto& l : b["allocations"]) {
    CAPTURE(l["law"]);
    EXPECT_CLOSE(l["flops"].get<double>(), 5.76e23, 1e-9);
    if (l["law"] == "chinchilla-approach1") EXPECT_CLOSE(l["params"].get<double>(), 67e9, 1e-9);  // Table 3
    if (l["law"] == "chinchilla") EXPECT_CLOSE(l["params"].get<double>(), 3.219e10, 1e-3);
  }
}

TEST_CASE("optimal --law chinchilla-approach1 reproduces the 67B row — inverse, target loss, inference") {
  auto first = [](const std::string& args) {
    return nlohmann::json::parse(run_cli(args).out)["allocations"][0];
  };
  auto j = first("optimal --flops 5.76e23 --law chinchilla-approach1 -o json");
  EXPECT_CLOSE(j["params"].get<double>(), 67e9, 1e-9);
  j = first("optimal --params 70B -o json");
  EXPECT_CLOSE(j["params"].get<double>(), 70e9, 1e-9);
  j = first("optimal --target-loss 2.0 -o json");
  EXPECT_CLOSE(j["loss"].get<double>(), 2.0, 1e-9);
  j = first("optimal --flops 5.76e23 --inference-tokens 2T --law chinchilla -o json");
  EXPECT_CLOSE(j["inference_tokens"].get<double>(), 2e12, 1e-12);
  CHECK(j["params"].get<double>() < 3.219e10);
  CHECK(j["total_flops"].get<double>() <= j["compute_optimal"]["total_flops"].get<double>());
  CHECK(run_cli("optimal --flops 5.76e23").status == 0);
}

TEST_CASE("a target loss no budget reaches is infeasible: exit 1 with a message") {
  // Below E, past what unlimited tokens give a fixed model, past what a unique-token cap allows: valid questions
  // without an answer (isoflop-optimal(1): 1 infeasible).
  for (const char* args : {"optimal --target-loss 1.5 --law chinchilla", "optimal --target-loss 1.95 --params 10B",
                           "optimal --target-loss 1.9 --law muennighoff-2023 --unique-tokens 100B",
                           "optimal --target-loss 1.5 --law chinchilla --inference-tokens 1T"}) {
    INFO(args);
    const auto r = run_cli(args);
    CHECK(r.status == 1);
    CHECK(r.out.empty());
    CHECK(r.err.rfind("isoflop: infeasible: target loss ", 0) == 0);
    CHECK(r.err.find("unreachable") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("bad input to optimal and loss: exit 2, one line on stderr, nothing on stdout") {
  const char* const kBad[] = {
      "optimal --flops -5",
      "optimal --flops nan",
      "optimal --flops 1e400",
      "optimal --flops 70X",
      "optimal --flops",
      "optimal --flops 0",
      "optimal --flops inf",
      "optimal --flops 1e23 --params 70B",
      "optimal",
      "optimal --flops 1e23 --law nosuchlaw",
      "optimal --flops 1e23 --law chinchila",
      "optimal --flops 1e23 --catalog /nonexistent/dir",
      "optimal --flops 1e23 --law-params 1,2,3",
      "optimal --flops 1e23 --law-params 1,2,x,4,5",
      "optimal --flops 1e23 --law chinchilla --law-params 1.69,406.4,410.7,0.34,0.28",
      "optimal --flops 1e23 --all-laws --law chinchilla",
      "optimal --flops 1e23 --unique-tokens -1",
      "optimal --flops 1e23 --inference-tokens -2T",
      "optimal --flops 1e23 --unique-tokens 1B --law kaplan-2020",
      "optimal --target-loss abc",
      "optimal --target-loss 2.0 --law chinchilla-approach1",
      "optimal --params 70B --unique-tokens 1B",
      "optimal --flops 1e23 --bogus",
      "optimal --flops 1e23 -o xml",
      "loss --params 70B",
      "loss --tokens 1.4T",
      "loss --params -1 --tokens 1.4T",
      "loss --params 70B --tokens nan",
      "loss --params 70B --tokens 1.4T --law llama3-2024",
      "loss --params 70B --tokens 1.4T --law nosuch",
      "loss --params 70B --tokens 1.4T --unique-tokens 0",
      "loss --params 70B --tokens 1.4T --unique-tokens 1B --law kaplan-2020",
      "loss --params 70Q --tokens 1.4T",
      "loss --params 70B --tokens 1e400",
      "loss --params 70B --tokens 1.4T --catalog /nonexistent/dir",
  };
  for (const char* args : kBad) {
    CAPTURE(args);
    const auto r = run_cli(args);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_FALSE(r.err.empty());
    CHECK(r.err.find('\n') == r.err.size() - 1);  // exactly one line
  }
}

TEST_CASE("optimal --help shows examples") {
  const auto r = run_cli("optimal --help");
  CHECK(r.status == 0);
  CHECK(r.out.find("Examples:") != std::string::npos);
}
