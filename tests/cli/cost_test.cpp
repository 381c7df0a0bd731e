// End-to-end tests of `isoflop cost`: the 420 x DGX A100 month, Patterson's GPT-3 and T5 rows, Narayanan eq. 4,
// the three energy methods, the inverse (affordable FLOPs), embodied carbon, the 4Ms what-if, bad input.
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

TEST_CASE("cost: Narayanan eq. 4, 175B on 300B tokens (8TP FLOPs), 1024 GPUs at 140 TFLOP/s: 33.9 days") {
  const auto r = run_cli("cost --flops 4.2e23 --tflops-per-gpu 140 --gpu a100-sxm4-80gb --gpus 1024 -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "days") / 33.9 - 1) < 0.003);
  const auto t = run_cli("cost --flops 3.6e24 --tflops-per-gpu 163 --gpu a100-sxm4-80gb --gpus 3072 -o json");
  REQUIRE(t.status == 0);
  CHECK(std::fabs(field(t.out, "days") / 83.2 - 1) < 0.003);
}

TEST_CASE("cost: Patterson et al. 2021 T5 on TPU v3, an accelerator without a catalog node") {
  const auto r = run_cli("cost --gpu tpu-v3 --gpus 512 --time 20d --power-w 310 --pue 1.12 --grid google-taiwan-2019 -o json");
  REQUIRE(r.status == 0);
  CHECK(std::fabs(field(r.out, "energy_kwh") / 85.7e3 - 1) < 0.01);
  CHECK(std::fabs(field(r.out, "co2e_kg") / 46.7e3 - 1) < 0.01);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["energy_methods"][0]["available"] == false);  // no node power
  CHECK(doc["energy_method"] == "measured");
}

TEST_CASE("cost: all three energy methods with their assumptions, --energy-method chooses") {
  const auto r = run_cli("cost --node dgx-a100 --nodes 420 --time 720h -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["energy_methods"].size() == 3);
  int chosen = 0;
  for (const auto& m : doc["energy_methods"]) {
    CHECK(!m["assumptions"].get<std::string>().empty());
    chosen += m["chosen"].get<bool>();
  }
  CHECK(chosen == 1);
  CHECK(doc["energy_methods"][0]["method"] == "node");
  CHECK(doc["energy_methods"][0]["chosen"] == true);
  CHECK(doc["energy_methods"][0]["assumptions"].get<std::string>().find("6.5 kW") != std::string::npos);
  // TDP method: (400 W × 1 + 237 W host) × 3,360 = 2.14 MW.
  CHECK(std::fabs(doc["energy_methods"][2]["power_kw"].get<double>() - 3360 * 0.637) < 1e-9);
  const auto t = run_cli("cost --node dgx-a100 --nodes 420 --time 720h --energy-method tdp --tdp-utilisation 0.8 -o json");
  REQUIRE(t.status == 0);
  CHECK(std::fabs(field(t.out, "power_kw") - 3360 * (0.8 * 0.4 + 0.237)) < 1e-9);
  CHECK(nlohmann::json::parse(t.out)["power_method"] == "TDP-based power");
  const auto h = run_cli("cost --node dgx-a100 --nodes 420 --time 720h");
  CHECK(h.out.find("node (used)") != std::string::npos);
  CHECK(h.out.find("237 W host overhead") != std::string::npos);
}

TEST_CASE("cost: the FLOPs a duration affords, and the tokens for a model size") {
  const auto r = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4 -o json");
  REQUIRE(r.status == 0);
  const double c = 3360 * 312e12 * 0.4 * 30 * 86400.0;
  CHECK(std::fabs(field(r.out, "affordable_flops") / c - 1) < 1e-12);
  CHECK(std::fabs(field(r.out, "days") - 30) < 1e-9);
  const auto n = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4 --params 70B -o json");
  REQUIRE(n.status == 0);
  CHECK(std::fabs(field(n.out, "affordable_tokens") / (c / (6 * 70e9)) - 1) < 1e-12);
  // A measured run without a utilisation: the work is not known, nothing is "affordable".
  const auto m = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d -o json");
  REQUIRE(m.status == 0);
  CHECK(nlohmann::json::parse(m.out)["affordable_flops"].is_null());
  const auto h = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 30d --mfu 0.4");
  CHECK(h.out.find("affordable") != std::string::npos);
}

TEST_CASE("cost --embodied: LLMCarbon share of the accelerators' manufacturing carbon") {
  const auto r = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 365d --embodied -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  // A100 80GB: 8.26 cm² × 1.6 kg/cm² + 80 GB × 0.4 kg/GB = 45.216 kg; a year is a fifth of its life.
  CHECK(std::fabs(doc["embodied"]["kg_per_gpu"].get<double>() - 45.216) < 1e-9);
  CHECK(std::fabs(doc["embodied"]["share"].get<double>() - 0.2) < 1e-12);
  CHECK(std::fabs(doc["embodied"]["co2e_kg"].get<double>() - 3360 * 45.216 * 0.2) < 1e-6);
  CHECK(std::fabs(doc["total_co2e_kg"].get<double>() - doc["co2e_kg"].get<double>() - 3360 * 45.216 * 0.2) < 1e-6);
  const auto without = run_cli("cost --gpus 3360 --gpu a100-sxm4-80gb --time 365d -o json");
  CHECK(nlohmann::json::parse(without.out)["embodied"].is_null());
}

TEST_CASE("cost --whatif: the 4Ms rows, none above the baseline") {
  const auto r = run_cli("cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --pue industry-average "
                         "--price-per-gpu-hour 2 --price-per-kwh 0.1 --whatif -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  const auto& rows = doc["whatif"];
  REQUIRE(rows.size() == 6);
  const char* levers[] = {"baseline", "model", "machine", "mechanization", "map", "all"};
  for (size_t i = 0; i < 6; ++i) {
    INFO(levers[i]);
    CHECK(rows[i]["lever"] == levers[i]);
    CHECK(rows[i]["energy_kwh"].get<double>() <= doc["energy_kwh"].get<double>() * (1 + 1e-12));
    CHECK(rows[i]["co2e_kg"].get<double>() <= doc["co2e_kg"].get<double>() * (1 + 1e-12));
    CHECK(rows[i]["cost_usd"].get<double>() <= doc["cost_usd"].get<double>() * (1 + 1e-12));
  }
  CHECK(std::fabs(rows[1]["energy_factor"].get<double>() - 3) < 1e-12);
  CHECK(std::fabs(rows[3]["energy_factor"].get<double>() - 1.58 / 1.10) < 1e-12);
  CHECK(rows[4]["change"].get<std::string>().find("ca-qc") != std::string::npos);
  // A pinned machine that would be worse is not applied.
  const auto p = run_cli("cost --params 70B --tokens 1.4T --gpu h100-sxm5-80gb --gpus 1024 --mfu 0.45 --whatif-gpu p100-sxm2-16gb -o json");
  REQUIRE(p.status == 0);
  const auto pinned = nlohmann::json::parse(p.out);
  const auto& machine = pinned["whatif"][2];
  CHECK(machine["applied"] == false);
  CHECK(machine["energy_factor"].get<double>() == 1);
  const auto h = run_cli("cost --params 70B --tokens 1.4T --gpu a100-sxm4-80gb --gpus 1024 --mfu 0.45 --whatif");
  CHECK(h.out.find("4Ms what-if") != std::string::npos);
  CHECK(h.out.find("mechanization") != std::string::npos);
}

TEST_CASE("cost bad input exits 2") {
  const std::string base = "cost --gpu a100-sxm4-80gb --gpus 64 ";
  for (const char* args : {"--flops 1e22", "--flops 1e22 --mfu 1.5", "--flops 1e22 --mfu 0", "--flops 1e22 --mfu 0.4 --pue 0.9",
                           "--flops 1e22 --mfu 0.4 --power-w -5", "--flops 1e22 --mfu 0.4 --grid atlantis",
                           "--flops 1e22 --params 7B --tokens 1T --mfu 0.4", "--params 7B --mfu 0.4",
                           "--flops 1e22 --mfu 0.4 --cfe 1.2", "--flops 1e22 --mfu 0.4 --gpu a100-sxm4-80g",
                           "--flops 1e22 --mfu 0.4 --time 30d", "--params 7B --tokens 1T --time 30d --mfu 0.4",
                           "--tokens 1T --mfu 0.4", "--flops 1e22 --mfu -0.4", "--flops 1e22 --tflops-per-gpu 400",
                           "--flops 1e22 --mfu 0.4 --power-w 0", "--flops 1e22 --mfu 0.4 --node-power-kw -6.5",
                           "--flops 1e22 --mfu 0.4 --pue 0.99", "--flops 1e22 --mfu 0.4 --grid -5g/kWh",
                           "--flops 1e22 --mfu 0.4 --energy-method nodes", "--flops 1e22 --mfu 0.4 --energy-method measured",
                           "--flops 1e22 --mfu 0.4 --tdp-utilisation 1.5", "--flops 1e22 --mfu 0.4 --host-overhead-w -1",
                           "--flops 1e22 --mfu 0.4 --whatif --whatif-gpu h100", "--flops 1e22 --mfu 0.4 --whatif-grid quebec",
                           "--flops 1e22 --mfu 0.4 --whatif-model-factor 0.5", "--flops 1e22 --mfu 0.4 --embodied-kg-per-gpu -3"}) {
    INFO(args);
    const auto r = run_cli(base + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("cost bad cluster and embodied input exits 2") {
  for (const char* args : {"--flops 1e22 --mfu 0.4 --gpu mi300x --node dgx-a100 --nodes 2",  // node of another accelerator
                           "--time 30d --gpu tpu-v3 --nodes 4",                           // TPUs have no catalog node
                           "--time 30d --gpu tpu-v3 --gpus 512 --energy-method node",     // so no node power either
                           "--flops 1e22 --mfu 0.4 --gpu mi300x --gpus 8 --embodied",     // no embodied entry
                           "--flops 1e22 --mfu 0.4 --gpu a100-sxm4-80gb"}) {              // no count
    INFO(args);
    const auto r = run_cli(std::string("cost ") + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
}

TEST_CASE("cost: unknown names suggest the nearest") {
  const auto r = run_cli("cost --gpu a100-sxm4-80g --gpus 8 --flops 1e22 --mfu 0.4");
  CHECK(r.status == 2);
  CHECK(r.err.find("did you mean 'a100-sxm4-80gb'") != std::string::npos);
  const auto g = run_cli("cost --gpu a100-sxm4-80gb --gpus 8 --flops 1e22 --mfu 0.4 --grid frr");
  CHECK(g.status == 2);
  CHECK(g.err.find("did you mean") != std::string::npos);
  const auto w = run_cli("cost --gpu a100-sxm4-80gb --gpus 8 --flops 1e22 --mfu 0.4 --whatif-gpu h100-sxm5-80g");
  CHECK(w.status == 2);
  CHECK(w.err.find("did you mean 'h100-sxm5-80gb'") != std::string::npos);
}
