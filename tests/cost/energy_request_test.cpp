// Tests for lib/cost/energy_request and cost_report: catalog defaults, what a request overrides, the energy
// method a given power selects, errors naming the field, and a recost that changes only what was asked.
#include "cost/energy_request.hpp"

#include <doctest/doctest.h>

#include <functional>

#include "core/error.hpp"
#include "support/expect_close.hpp"
#include "units/format.hpp"

using namespace isoflop;
using namespace isoflop::cost;

namespace {

// 1024 A100 in DGX A100 nodes at 45 % MFU on Chinchilla-70B's 6ND.
RunCostInputs a100_run(const catalog::Catalog& cat, const EnergyRequest& request) {
  const catalog::Accelerator& acc = cat.accelerator("a100-sxm4-80gb");
  RunCostInputs in;
  in.flops = 6 * 70e9 * 1.4e12;
  in.gpus = 1024;
  in.gpus_per_node = 8;
  in.peak_flops_per_gpu = acc.peak_16bit_flops;
  in.utilisation = 0.45;
  resolve_energy(request, cat, acc, &cat.node("dgx-a100"), &in);
  return in;
}

CostReport a100_report(const catalog::Catalog& cat, const EnergyRequest& request) {
  const RunCostInputs in = a100_run(cat, request);
  return report_run_cost(in, whatif_options(resolve_levers(request, cat), cat, cat.accelerator("a100-sxm4-80gb"), in));
}

std::string field_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const FieldError& e) {
    return e.field();
  }
  return "";
}

}  // namespace

TEST_CASE("PUE and grid: a preset or region, or a value with its unit") {
  const catalog::Catalog cat = catalog::load_catalog();
  EXPECT_CLOSE(pue_value(cat, "1.12"), 1.12, 1e-15);
  EXPECT_CLOSE(pue_value(cat, "hyperscaler"), cat.pue_preset("hyperscaler").pue, 1e-15);
  EXPECT_CLOSE(grid_value(cat, "429g/kWh"), 0.429, 1e-12);
  EXPECT_CLOSE(grid_value(cat, "fr"), cat.grid("fr").intensity_kg_per_kwh, 1e-15);
  CHECK(field_of([&] { pue_value(cat, "0.9"); }) == "pue");
  CHECK(field_of([&] { pue_value(cat, "hyperscalr"); }) == "pue");
  CHECK(field_of([&] { grid_value(cat, "-5g/kWh"); }) == "grid");
  CHECK(field_of([&] { grid_value(cat, "atlantis"); }) == "grid");
}

TEST_CASE("stated PUE grid and power past the catalog's plausible bounds are refused as unit slips") {
  const catalog::Catalog cat = catalog::load_catalog();
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  REQUIRE(k.max_pue > 1);
  REQUIRE(k.max_grid_kg_per_kwh > 0);
  const catalog::Accelerator& acc = cat.accelerator("a100-sxm4-80gb");
  // At the bounds themselves: accepted.
  const auto at = [](double v) { return units::format_significant(v, 6); };
  const auto pue = [](std::string v) {
    EnergyRequest r;
    r.pue = std::move(v);
    return r;
  };
  const auto grid = [](std::string v) {
    EnergyRequest r;
    r.grid = std::move(v);
    return r;
  };
  const auto power = [](double w) {
    EnergyRequest r;
    r.power_per_gpu_w = w;
    return r;
  };
  const auto node_power = [](double w) {
    EnergyRequest r;
    r.node_power_w = w;
    return r;
  };
  CHECK(a100_run(cat, pue(at(k.max_pue))).pue == doctest::Approx(k.max_pue));
  CHECK(a100_run(cat, grid(at(k.max_grid_kg_per_kwh) + "kg/kWh")).intensity_kg_per_kwh ==
        doctest::Approx(k.max_grid_kg_per_kwh));
  CHECK(a100_run(cat, power(k.power_tdp_ratio[0] * acc.tdp_w)).power_per_gpu_w ==
        doctest::Approx(k.power_tdp_ratio[0] * acc.tdp_w));
  // The published measurements stand: GPT-3's 330 W per V100 (Patterson et al. 2021 Table 4), a DGX A100's 6.5 kW.
  CHECK(a100_run(cat, node_power(6500)).node_power_w == doctest::Approx(6500));
  // Past them: a PUE typed as a percentage, a grid in g/kWh written as kg/kWh, a node's watts as an accelerator's
  // and kilowatts as watts.
  CHECK(field_of([&] { a100_run(cat, pue("50")); }) == "pue");
  CHECK(field_of([&] { a100_run(cat, pue(at(k.max_pue * 1.01))); }) == "pue");
  CHECK(field_of([&] { a100_run(cat, grid("429kg/kWh")); }) == "grid");
  CHECK(field_of([&] { a100_run(cat, power(6500)); }) == "power_w");
  CHECK(field_of([&] { a100_run(cat, power(0.33)); }) == "power_w");
  CHECK(field_of([&] { a100_run(cat, power(k.power_tdp_ratio[1] * acc.tdp_w * 1.01)); }) == "power_w");
  CHECK(field_of([&] { a100_run(cat, node_power(6.5e6)); }) == "node_power_kw");
  CHECK(field_of([&] { a100_run(cat, node_power(6.5)); }) == "node_power_kw");
  // A named grid or preset is the catalog's own and never refused, an overlay's past the bounds included (a
  // lignite plant's own grid, an old machine room).
  catalog::Catalog overlaid = cat;
  catalog::Grid lignite = cat.grid("in");
  lignite.name = "lignite";
  lignite.intensity_kg_per_kwh = k.max_grid_kg_per_kwh * 1.1;
  overlaid.grids.push_back(lignite);
  catalog::PuePreset old_room = cat.pue_preset("typical");
  old_room.name = "old-room";
  old_room.pue = k.max_pue * 1.1;
  overlaid.pue_presets.push_back(old_room);
  EnergyRequest named = grid("lignite");
  named.pue = "old-room";
  const RunCostInputs in = a100_run(overlaid, named);
  CHECK(in.intensity_kg_per_kwh == doctest::Approx(lignite.intensity_kg_per_kwh));
  CHECK(in.pue == doctest::Approx(old_room.pue));
  // The same values typed as numbers are refused.
  CHECK(field_of([&] { a100_run(overlaid, grid(at(lignite.intensity_kg_per_kwh) + "kg/kWh")); }) == "grid");
  CHECK(field_of([&] { a100_run(overlaid, pue(at(old_room.pue))); }) == "pue");
}

TEST_CASE("stated prices past the catalog's plausible bounds are refused: a node's hour per GPU and cents as dollars") {
  const catalog::Catalog cat = catalog::load_catalog();
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  // The bounds stand above every list price they cite: AWS's p5.48xlarge per GPU-hour, $98.32 / 8.
  REQUIRE(k.max_price_per_gpu_hour_usd > 98.32 / 8);
  REQUIRE(k.max_price_per_gpu_hour_usd < 98.32);
  REQUIRE(k.max_price_per_kwh_usd > 0.59);
  REQUIRE(k.max_price_per_kwh_usd < 12);
  const auto priced = [](double gpu_hour, double kwh) {
    EnergyRequest r;
    r.price_per_gpu_hour_usd = gpu_hour;
    r.price_per_kwh_usd = kwh;
    return r;
  };
  const RunCostInputs at = a100_run(cat, priced(k.max_price_per_gpu_hour_usd, k.max_price_per_kwh_usd));
  CHECK(*at.price_per_gpu_hour_usd == doctest::Approx(k.max_price_per_gpu_hour_usd));
  CHECK(*at.price_per_kwh_usd == doctest::Approx(k.max_price_per_kwh_usd));
  CHECK(*a100_run(cat, priced(0, 0)).price_per_gpu_hour_usd == 0);  // free compute is a price, not a slip
  CHECK(field_of([&] { a100_run(cat, priced(98.32, 0.1)); }) == "price_per_gpu_hour_usd");
  CHECK(field_of([&] { a100_run(cat, priced(k.max_price_per_gpu_hour_usd * 1.01, 0.1)); }) == "price_per_gpu_hour_usd");
  CHECK(field_of([&] { a100_run(cat, priced(2, 12)); }) == "price_per_kwh_usd");
  // An overlay without the bounds accepts any price.
  catalog::Catalog unbounded = cat;
  for (auto& c : unbounded.run_cost) c.max_price_per_gpu_hour_usd = c.max_price_per_kwh_usd = 0;
  CHECK(*a100_run(unbounded, priced(98.32, 12)).price_per_kwh_usd == 12);
}

TEST_CASE("catalog defaults: node power for a node, a typical datacenter's PUE, the us grid, unpriced") {
  const catalog::Catalog cat = catalog::load_catalog();
  const RunCostInputs in = a100_run(cat, {});
  CHECK(in.energy_method == EnergyMethod::kNode);
  EXPECT_CLOSE(in.node_power_w.value(), 6500, 1e-15);
  // Not a hyperscaler's 1.10: the Uptime Institute 2024 survey average, 1.56 (cost.yaml default_pue).
  CHECK(cat.run_cost_constants().default_pue == "typical");
  EXPECT_CLOSE(in.pue, 1.56, 1e-15);
  EXPECT_CLOSE(cat.pue_preset("hyperscaler").pue, 1.10, 1e-15);
  EXPECT_CLOSE(in.intensity_kg_per_kwh, cat.grid("us").intensity_kg_per_kwh, 1e-15);
  EXPECT_CLOSE(in.host_overhead_w, cat.run_cost_constants().host_overhead_w, 1e-15);
  CHECK_FALSE(in.price_per_gpu_hour_usd);
  CHECK_FALSE(in.embodied_kg_per_gpu);
  const RunCost c = estimate_run_cost(in);
  CHECK_FALSE(c.cost_usd);  // unknown, not 0
  CHECK_FALSE(c.compute_cost_usd);
  CHECK_FALSE(c.energy_cost_usd);
}

TEST_CASE("a given power selects its method and an energy method named wins") {
  const catalog::Catalog cat = catalog::load_catalog();
  EnergyRequest r;
  r.power_per_gpu_w = 330;
  CHECK(a100_run(cat, r).energy_method == EnergyMethod::kMeasured);
  r.energy_method = EnergyMethod::kTdp;
  CHECK(a100_run(cat, r).energy_method == EnergyMethod::kTdp);
  EnergyRequest node;
  node.node_power_w = 5000;
  const RunCostInputs in = a100_run(cat, node);
  CHECK(in.node_power_note == "given");
  EXPECT_CLOSE(estimate_run_cost(in).power_w, 5000 * 128, 1e-15);
}

TEST_CASE("money: each priced part, the total of what is priced") {
  const catalog::Catalog cat = catalog::load_catalog();
  EnergyRequest r;
  r.price_per_kwh_usd = 0.1;
  const RunCost energy_only = estimate_run_cost(a100_run(cat, r));
  CHECK_FALSE(energy_only.compute_cost_usd);
  EXPECT_CLOSE(energy_only.cost_usd.value(), 0.1 * energy_only.energy_kwh, 1e-12);
  r.price_per_gpu_hour_usd = 2;
  const RunCost both = estimate_run_cost(a100_run(cat, r));
  EXPECT_CLOSE(both.cost_usd.value(), 2 * both.gpu_hours + 0.1 * both.energy_kwh, 1e-12);
  r.price_per_gpu_hour_usd = 0;  // given as free: priced at 0, not unknown
  r.price_per_kwh_usd.reset();
  EXPECT_CLOSE(estimate_run_cost(a100_run(cat, r)).cost_usd.value(), 0, 1e-15);
}

TEST_CASE("embodied carbon from the catalog, or an unknown accelerator named") {
  const catalog::Catalog cat = catalog::load_catalog();
  EnergyRequest r;
  r.embodied = true;
  // A100 80GB: 8.26 cm² × 1.6 kg/cm² + 80 GB × 0.4 kg/GB = 45.216 kg.
  EXPECT_CLOSE(a100_run(cat, r).embodied_kg_per_gpu.value(), 45.216, 1e-9);
  RunCostInputs in;
  CHECK(field_of([&] { resolve_energy(r, cat, cat.accelerator("mi300x"), nullptr, &in); }) == "embodied");
}

TEST_CASE("bad values name their field") {
  const catalog::Catalog cat = catalog::load_catalog();
  EnergyRequest r;
  r.cfe_fraction = 1.2;
  CHECK(field_of([&] { estimate_run_cost(a100_run(cat, r)); }) == "cfe_fraction");
  r = {};
  r.tdp_utilisation = 1.5;
  CHECK(field_of([&] { estimate_run_cost(a100_run(cat, r)); }) == "tdp_utilisation");
  r = {};
  r.whatif_model_factor = 0.5;
  CHECK(field_of([&] { a100_report(cat, r); }) == "whatif_model_factor");
  r = {};
  r.whatif_gpu = "h100";
  CHECK(field_of([&] { a100_report(cat, r); }) == "whatif_gpu");
  r = {};
  r.energy_method = EnergyMethod::kMeasured;  // the A100 has no measured power in the catalog
  CHECK(field_of([&] { a100_report(cat, r); }) == "energy_method");
}

TEST_CASE("the report echoes the levers and a recost with nothing asked is the same report") {
  const catalog::Catalog cat = catalog::load_catalog();
  EnergyRequest r;
  r.whatif_gpu = "h100-sxm5-80gb";
  r.whatif_model_factor = 5;
  const CostReport report = a100_report(cat, r);
  CHECK(report.accelerator == "a100-sxm4-80gb");
  CHECK(report.levers.machine == "h100-sxm5-80gb");
  CHECK_FALSE(report.levers.region);
  EXPECT_CLOSE(report.levers.model_factor, 5, 1e-15);
  REQUIRE(report.whatif.size() == 6);
  EXPECT_CLOSE(report.whatif[1].energy_factor, 5, 1e-12);
  CHECK(recost(report, {}, cat) == report);
}

TEST_CASE("a recost changes what is asked: the grid scales CO2e by the intensity ratio") {
  const catalog::Catalog cat = catalog::load_catalog();
  const CostReport us = a100_report(cat, {});
  EnergyRequest fr;
  fr.grid = "fr";
  fr.price_per_gpu_hour_usd = 2;
  const CostReport moved = recost(us, fr, cat);
  const double ratio = cat.grid("fr").intensity_kg_per_kwh / cat.grid("us").intensity_kg_per_kwh;
  EXPECT_CLOSE(moved.result.co2e_kg, us.result.co2e_kg * ratio, 1e-12);
  EXPECT_CLOSE(moved.result.energy_kwh, us.result.energy_kwh, 1e-15);
  EXPECT_CLOSE(moved.result.cost_usd.value(), 2 * us.result.gpu_hours, 1e-12);
  CHECK(moved.inputs.pue == us.inputs.pue);
  CHECK(moved.levers == us.levers);
}
