// Tests for lib/cost/run_cost: Patterson et al. 2021 Table 4 (GPT-3), the 420 x DGX A100 month, Narayanan
// eq. 4, the three energy methods (BLOOM for the TDP one), linearity, the inverse, and bad input.
#include "cost/run_cost.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::cost;

namespace {
RunCostInputs gpt3() {
  // 3.14e23 FLOPs on 10,000 V100 at 24.6 TFLOP/s achieved (of 125 peak), 330 W measured, PUE 1.1, 0.429 kg/kWh.
  RunCostInputs in;
  in.flops = 3.14e23;
  in.gpus = 10000;
  in.peak_flops_per_gpu = 125e12;
  in.utilisation = 24.6 / 125;
  in.power_per_gpu_w = 330;
  in.pue = 1.1;
  in.intensity_kg_per_kwh = 0.429;
  return in;
}
}  // namespace

TEST_CASE("Patterson et al. 2021 Table 4: GPT-3, 14.77 days and 1,287 MWh, 552 t") {
  const RunCost c = estimate_run_cost(gpt3());
  EXPECT_CLOSE(c.days, 14.77, 0.002);
  EXPECT_CLOSE(c.energy_kwh / 1e3, 1287, 0.002);
  EXPECT_CLOSE(c.co2e_kg / 1e3, 552.1, 0.002);
}

TEST_CASE("420 DGX A100 at 6.5 kW for 720 h: 2.73 MW and 1,965.6 MWh") {
  RunCostInputs in;
  in.gpus = 3360;
  in.peak_flops_per_gpu = 312e12;
  in.utilisation = 0.5;
  in.flops = 720 * 3600.0 * 3360 * 312e12 * 0.5;  // exactly 720 hours of work
  in.node_power_w = 6500;
  in.gpus_per_node = 8;
  const RunCost c = estimate_run_cost(in);
  EXPECT_CLOSE(c.time_s / 3600, 720, 1e-12);
  EXPECT_CLOSE(c.power_w, 2.73e6, 1e-12);
  EXPECT_CLOSE(c.it_energy_kwh, 1965.6e3, 1e-12);
  EXPECT_CLOSE(c.energy_kwh, 1965.6e3, 1e-12);  // PUE 1 (the default inputs)
}

TEST_CASE("Narayanan eq. 4 examples via 6ND at the achieved rate (8TP/(nX) with recompute)") {
  // 8·T·P/(n·X): GPT-3 175B, 300B tokens, 1024 GPUs, 140 TFLOP/s → 33.9 days.
  RunCostInputs in;
  in.flops = 8 * 300e9 * 175e9;
  in.gpus = 1024;
  in.peak_flops_per_gpu = 312e12;
  in.utilisation = 140.0 / 312;
  in.power_per_gpu_w = 400;
  EXPECT_CLOSE(estimate_run_cost(in).days, 33.9, 0.003);
  in.flops = 8 * 450e9 * 1e12;
  in.gpus = 3072;
  in.utilisation = 163.0 / 312;
  EXPECT_CLOSE(estimate_run_cost(in).days, 83.2, 0.003);
}

TEST_CASE("cost is linear in work and never grows when a lever improves") {
  RunCostInputs in = gpt3();
  in.price_per_gpu_hour_usd = 2;
  in.price_per_kwh_usd = 0.1;
  const RunCost base = estimate_run_cost(in);
  in.flops *= 2;
  const RunCost twice = estimate_run_cost(in);
  EXPECT_CLOSE(twice.energy_kwh, 2 * base.energy_kwh, 1e-12);
  REQUIRE(base.cost_usd);
  EXPECT_CLOSE(*twice.cost_usd, 2 * *base.cost_usd, 1e-12);
  in.flops /= 2;
  in.pue = 1.05;
  CHECK(estimate_run_cost(in).co2e_kg < base.co2e_kg);
  in.cfe_fraction = 0.5;
  EXPECT_CLOSE(estimate_run_cost(in).net_co2e_kg, 0.5 * estimate_run_cost(in).co2e_kg, 1e-12);
}

TEST_CASE("bad cost inputs are rejected") {
  RunCostInputs in = gpt3();
  in.pue = 0.9;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in = gpt3();
  in.utilisation = 1.5;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in = gpt3();
  in.power_per_gpu_w = -5;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in = gpt3();
  in.cfe_fraction = 1.01;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  // A site matched hour by hour with carbon-free energy: gross emissions as the grid's, net zero.
  in.cfe_fraction = 1;
  const auto matched = estimate_run_cost(in);
  CHECK(matched.net_co2e_kg == 0);
  CHECK(matched.co2e_kg == estimate_run_cost(gpt3()).co2e_kg);
}

namespace {
// Patterson et al. 2021 Table 4 inputs as the paper states them: chips × days × measured W × PUE × grid.
// FLOPs are set so the run lasts exactly `days` at utilisation 1 of a 1 TFLOP/s peak: the row is about
// energy and carbon from a measured time, not about throughput.
RunCostInputs table4_row(int chips, double days, double watts, double pue, double kg_per_kwh, double cfe = 0) {
  RunCostInputs in;
  in.flops = days * 86400.0 * chips * 1e12;
  in.gpus = chips;
  in.peak_flops_per_gpu = 1e12;
  in.utilisation = 1.0;
  in.power_per_gpu_w = watts;
  in.pue = pue;
  in.intensity_kg_per_kwh = kg_per_kwh;
  in.cfe_fraction = cfe;
  return in;
}
}  // namespace

TEST_CASE("Patterson et al. 2021 Table 4 from 14.8 days: GPT-3 1,289.4 MWh and 553.1 t") {
  const RunCost c = estimate_run_cost(table4_row(10000, 14.8, 330, 1.1, 0.429));
  EXPECT_CLOSE(c.days, 14.8, 1e-12);
  EXPECT_CLOSE(c.energy_kwh / 1e3, 1289.4, 1e-4);
  EXPECT_CLOSE(c.co2e_kg / 1e3, 553.1, 2e-4);
}

TEST_CASE("Patterson et al. 2021 Table 4: T5, Meena, GShard-600B and Switch within 1 % of the table") {
  // Published MWh and tCO2e (gross, or net where the table's net intensity differs from gross).
  const RunCost t5 = estimate_run_cost(table4_row(512, 20, 310, 1.12, 0.545));
  EXPECT_CLOSE(t5.energy_kwh / 1e3, 85.7, 0.01);
  EXPECT_CLOSE(t5.co2e_kg / 1e3, 46.7, 0.01);
  const RunCost meena = estimate_run_cost(table4_row(1024, 30, 289, 1.09, 0.415));
  EXPECT_CLOSE(meena.energy_kwh / 1e3, 232, 0.01);
  EXPECT_CLOSE(meena.co2e_kg / 1e3, 96.4, 0.01);
  // GShard: gross 0.201 kg/kWh, net 0.177 (carbon-free energy fraction 1 − 0.177/0.201).
  const RunCost gshard = estimate_run_cost(table4_row(1024, 3.1, 288, 1.09, 0.201, 1 - 0.177 / 0.201));
  EXPECT_CLOSE(gshard.energy_kwh / 1e3, 24.1, 0.01);
  EXPECT_CLOSE(gshard.co2e_kg / 1e3, 4.8, 0.01);
  CHECK(gshard.net_co2e_kg / 1e3 >= 4.2 * 0.99);
  CHECK(gshard.net_co2e_kg / 1e3 <= 4.3 * 1.01);
  // Switch: gross 0.403, net 0.330.
  const RunCost sw = estimate_run_cost(table4_row(1024, 27, 245, 1.10, 0.403, 1 - 0.330 / 0.403));
  EXPECT_CLOSE(sw.energy_kwh / 1e3, 179, 0.01);
  EXPECT_CLOSE(sw.co2e_kg / 1e3, 72.2, 0.01);
  EXPECT_CLOSE(sw.net_co2e_kg / 1e3, 59.1, 0.01);
  CHECK(sw.net_co2e_kg < sw.co2e_kg);
}

TEST_CASE("three energy methods, each with its assumptions, and the chosen one gives the figures") {
  // 420 DGX A100 for 720 h: node 6.5 kW, measured 330 W, TDP 400 W × 1 + 237 W host.
  RunCostInputs in;
  in.gpus = 3360;
  in.peak_flops_per_gpu = 312e12;
  in.utilisation = 1;
  in.flops = 720 * 3600.0 * 3360 * 312e12;
  in.node_power_w = 6500;
  in.power_per_gpu_w = 330;
  in.tdp_w = 400;
  in.tdp_utilisation = 1.0;
  in.host_overhead_w = 237;
  in.pue = 1.1;
  in.intensity_kg_per_kwh = 0.429;
  in.energy_method = EnergyMethod::kNode;
  const RunCost c = estimate_run_cost(in);
  REQUIRE(c.energy_methods.size() == 3);
  for (const auto& m : c.energy_methods) {
    CHECK(m.power.available);
    CHECK(!m.power.assumptions.empty());
  }
  EXPECT_CLOSE(c.energy_methods[0].it_energy_kwh, 1965.6e3, 1e-12);  // node: 2.73 MW × 720 h
  EXPECT_CLOSE(c.energy_methods[1].it_energy_kwh, 3360 * 0.330 * 720, 1e-12);
  EXPECT_CLOSE(c.energy_methods[2].power.power_w, 3360 * 637.0, 1e-12);  // (400 × 1 + 237) W each
  EXPECT_CLOSE(c.energy_kwh, 1965.6e3 * 1.1, 1e-12);
  EXPECT_CLOSE(c.co2e_kg, 1965.6e3 * 1.1 * 0.429, 1e-12);  // 927.6 t
  CHECK(c.power_method == "node power");
  in.energy_method = EnergyMethod::kTdp;
  const RunCost t = estimate_run_cost(in);
  EXPECT_CLOSE(t.energy_kwh, t.energy_methods[2].energy_kwh, 1e-12);
  CHECK(t.power_method == "TDP-based power");
  // Without a choice: measured when given, else node, else TDP.
  in.energy_method.reset();
  CHECK(estimate_run_cost(in).energy_method == EnergyMethod::kMeasured);
  in.power_per_gpu_w.reset();
  CHECK(estimate_run_cost(in).energy_method == EnergyMethod::kNode);
  in.node_power_w.reset();
  CHECK(estimate_run_cost(in).energy_method == EnergyMethod::kTdp);
  for (auto m : {EnergyMethod::kNode, EnergyMethod::kMeasured, EnergyMethod::kTdp})
    CHECK(kEnergyMethodNames.parse(kEnergyMethodNames.name(m), "x") == m);
}

TEST_CASE("TDP method reproduces BLOOM's GPU energy: 1,082,990 A100-hours at 400 W = 433,196 kWh") {
  // Luccioni et al. 2023 charge each A100 at its TDP; the catalog's host overhead is their 256,646 kWh of
  // infrastructure energy spread over the same GPU-hours.
  const catalog::Catalog cat = catalog::load_catalog();
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  RunCostInputs in;
  in.gpus = 384;
  in.peak_flops_per_gpu = 312e12;
  in.utilisation = 1;
  in.flops = 1082990.0 / 384 * 3600 * 384 * 312e12;  // exactly 1,082,990 GPU-hours
  in.tdp_w = cat.accelerator("a100-sxm4-80gb").tdp_w;
  in.tdp_utilisation = k.tdp_utilisation;
  in.energy_method = EnergyMethod::kTdp;
  EXPECT_CLOSE(estimate_run_cost(in).gpu_hours, 1082990, 1e-12);
  EXPECT_CLOSE(estimate_run_cost(in).it_energy_kwh, 433196, 1e-5);
  in.host_overhead_w = k.host_overhead_w;
  EXPECT_CLOSE(estimate_run_cost(in).it_energy_kwh, 433196 + 256646, 1e-3);
}

TEST_CASE("a chosen method without its input, and bad TDP inputs, are rejected") {
  RunCostInputs in = gpt3();
  in.energy_method = EnergyMethod::kNode;  // no node power
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in.energy_method = EnergyMethod::kTdp;  // no TDP
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in.tdp_w = 300;
  CHECK_NOTHROW(estimate_run_cost(in));
  in.tdp_utilisation = 1.2;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in.tdp_utilisation = 0.8;
  in.host_overhead_w = -1;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
  in = gpt3();
  in.power_per_gpu_w.reset();
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);  // no power at all
}

TEST_CASE("cost is linear in GPUs x time for a measured run, and in tokens for a modelled one") {
  RunCostInputs in = table4_row(512, 20, 310, 1.12, 0.545);
  in.price_per_gpu_hour_usd = 1.5;
  in.price_per_kwh_usd = 0.08;
  const RunCost base = estimate_run_cost(in);
  RunCostInputs twice_gpus = table4_row(1024, 20, 310, 1.12, 0.545);
  twice_gpus.price_per_gpu_hour_usd = 1.5;
  twice_gpus.price_per_kwh_usd = 0.08;
  RunCostInputs twice_time = table4_row(512, 40, 310, 1.12, 0.545);
  twice_time.price_per_gpu_hour_usd = 1.5;
  twice_time.price_per_kwh_usd = 0.08;
  for (const RunCost& c : {estimate_run_cost(twice_gpus), estimate_run_cost(twice_time)}) {
    EXPECT_CLOSE(c.gpu_hours, 2 * base.gpu_hours, 1e-12);
    EXPECT_CLOSE(c.energy_kwh, 2 * base.energy_kwh, 1e-12);
    EXPECT_CLOSE(c.co2e_kg, 2 * base.co2e_kg, 1e-12);
    EXPECT_CLOSE(c.cost_usd.value(), 2 * base.cost_usd.value(), 1e-12);
  }
  // 6·N·D work: three times the tokens, three times everything but the power.
  RunCostInputs m = gpt3();
  m.flops = 6 * 175e9 * 300e9;
  const RunCost a = estimate_run_cost(m);
  m.flops = 6 * 175e9 * 900e9;
  const RunCost b = estimate_run_cost(m);
  EXPECT_CLOSE(b.energy_kwh, 3 * a.energy_kwh, 1e-12);
  EXPECT_CLOSE(b.time_s, 3 * a.time_s, 1e-12);
  EXPECT_CLOSE(b.power_w, a.power_w, 1e-12);
}

TEST_CASE("the inverse: FLOPs affordable in a time, and back") {
  // Narayanan eq. 4 turned around: 1024 GPUs at 140 TFLOP/s for 33.9 days do about 8 × 300B × 175B FLOPs.
  EXPECT_CLOSE(affordable_flops(1024, 312e12, 140.0 / 312, 33.9 * 86400), 8 * 300e9 * 175e9, 0.003);
  const double c = affordable_flops(3360, 312e12, 0.4, 30 * 86400.0);
  EXPECT_CLOSE(c, 3360 * 312e12 * 0.4 * 30 * 86400.0, 1e-12);
  RunCostInputs in = gpt3();
  in.gpus = 3360;
  in.peak_flops_per_gpu = 312e12;
  in.utilisation = 0.4;
  in.flops = c;
  EXPECT_CLOSE(estimate_run_cost(in).days, 30, 1e-12);
  CHECK_THROWS_AS(affordable_flops(0, 312e12, 0.4, 1), InputError);
  CHECK_THROWS_AS(affordable_flops(8, 312e12, 1.4, 1), InputError);
  CHECK_THROWS_AS(affordable_flops(8, 312e12, 0.4, -1), InputError);
}
