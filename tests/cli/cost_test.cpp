// End-to-end tests of `isoflop cost`: the 420 x DGX A100 month, Patterson's GPT-3 row, bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "support/run_cli.hpp"

using isoflop::test::run_cli;

namespace {
double field(const std::string& out, const char* key) { return nlohmann::json::parse(out)[key].get<double>(); }
}  // namespace

TEST_CASE("cost: 420 DGX A100 at 6.5 kW for 720 h is 2.73 MW and 1,965.6 MWh") {
  const auto r = run_cli("cost --node dgx-a100 --nodes 420 --time 720h -o json");
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.out)["schema"] == "isoflop/cost/v1");
  CHECK(std::fabs(field(r.out, "power_kw") - 2730) < 1e-9);
  CHECK(std::fabs(field(r.out, "it_energy_kwh") - 1965.6e3) < 1e-6);
  CHECK(std::fabs(field(r.out, "gpu_hours") - 3360 * 720) < 1e-6);
  const auto t = run_cli("cost --node dgx-a100 --nodes 420 --time 720h");
  CHECK(t.out.find("2.73 MW") != std::string::npos);
  CHECK(t.out.find("1.966 GWh at the machines") != std::string::npos);
}

TEST_CASE("cost: Patterson et al. 2021 GPT-3 from its published inputs") {
  const auto r = run_cli(
      "cost --flops 3.14e23 --tflops-per-gpu 24.6 --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1 --grid us -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "days") / 14.77 - 1) < 0.002);
  CHECK(std::fabs(field(r.out, "energy_kwh") / 1287e3 - 1) < 0.002);
  CHECK(std::fabs(field(r.out, "co2e_kg") / 552.1e3 - 1) < 0.002);
  // 14.8 days measured: 1,289.4 MWh and 553.1 t.
  const auto m = run_cli("cost --time 14.8d --gpu v100-sxm2-32gb --gpus 10000 --power-w 330 --pue 1.1 --grid us -o json");
  REQUIRE(m.status == 0);
  CHECK(std::fabs(field(m.out, "energy_kwh") / 1289.4e3 - 1) < 0.001);
  CHECK(std::fabs(field(m.out, "co2e_kg") / 553.1e3 - 1) < 0.001);
}

TEST_CASE("cost bad input exits 2") {
  const std::string base = "cost --gpu a100-sxm4-80gb --gpus 64 ";
  for (const char* args : {"--flops 1e22", "--flops 1e22 --mfu 1.5", "--flops 1e22 --mfu 0", "--flops 1e22 --mfu 0.4 --pue 0.9",
                           "--flops 1e22 --mfu 0.4 --power-w -5", "--flops 1e22 --mfu 0.4 --grid atlantis",
                           "--flops 1e22 --params 7B --tokens 1T --mfu 0.4", "--params 7B --mfu 0.4",
                           "--flops 1e22 --mfu 0.4 --cfe 1.2", "--flops 1e22 --mfu 0.4 --gpu a100-sxm4-80g"}) {
    INFO(args);
    const auto r = run_cli(base + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}
