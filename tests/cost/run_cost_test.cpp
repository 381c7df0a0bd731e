// Tests for lib/cost/run_cost: Patterson et al. 2021 Table 4 (GPT-3), the 420 x DGX A100 month, Narayanan
// eq. 4, linearity, and bad input.
#include "cost/run_cost.hpp"

#include <doctest/doctest.h>

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
  EXPECT_CLOSE(twice.cost_usd, 2 * base.cost_usd, 1e-12);
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
  in.cfe_fraction = 1;
  CHECK_THROWS_AS(estimate_run_cost(in), InputError);
}
