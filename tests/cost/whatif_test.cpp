// Tests for lib/cost/whatif: each 4Ms lever's factor, the combined row as their product, and the invariant
// that no lever raises energy, CO2e or money — over many baselines and every catalog accelerator and grid.
#include "cost/whatif.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "cost/energy_request.hpp"
#include "core/error.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::cost;

namespace {

// `gpus` of `accelerator` at 40 % MFU doing 1e23 FLOPs, priced or not.
RunCostInputs baseline_inputs(const catalog::Catalog& cat, const std::string& accelerator, EnergyMethod method,
                              double pue, const std::string& grid, bool priced) {
  const catalog::Accelerator& a = cat.accelerator(accelerator);
  RunCostInputs in;
  in.flops = 1e23;
  in.gpus = 512;
  in.peak_flops_per_gpu = a.peak_16bit_flops;
  in.utilisation = 0.4;
  if (!a.reference_node.empty()) in.node_power_w = cat.node(a.reference_node).max_power_w;
  in.gpus_per_node = a.reference_node.empty() ? 1 : cat.node(a.reference_node).gpus_per_node;
  if (a.measured_power_w) in.power_per_gpu_w = *a.measured_power_w;
  in.tdp_w = a.tdp_w;
  in.tdp_utilisation = cat.run_cost_constants().tdp_utilisation;
  in.host_overhead_w = cat.run_cost_constants().host_overhead_w;
  in.energy_method = method;
  in.pue = pue;
  in.intensity_kg_per_kwh = cat.grid(grid).intensity_kg_per_kwh;
  in.cfe_fraction = 0.2;
  if (priced) {
    in.price_per_gpu_hour_usd = 2;
    in.price_per_kwh_usd = 0.12;
  }
  return in;
}

WhatIfOptions catalog_levers(const catalog::Catalog& cat, const std::string& accelerator) {
  WhatIfOptions o;
  o.model_factor = cat.run_cost_constants().model_factor;
  o.accelerator = cat.accelerator(accelerator);
  o.machines = cat.accelerators;
  o.tdp_utilisation = cat.run_cost_constants().tdp_utilisation;
  o.host_overhead_w = cat.run_cost_constants().host_overhead_w;
  o.mechanization_pue = cat.run_cost_constants().mechanization_pue;
  o.regions = cat.grids;
  return o;
}

const WhatIfRow& row(const std::vector<WhatIfRow>& rows, Lever lever) {
  for (const auto& r : rows)
    if (r.lever == lever) return r;
  FAIL("no row " << kLeverNames.name(lever));
  return rows.front();
}

}  // namespace

TEST_CASE("no lever raises energy, CO2e or money, for any baseline, candidate machine or grid") {
  const catalog::Catalog cat = catalog::load_catalog();
  int cases = 0;
  for (const auto& acc : cat.accelerators)
    for (EnergyMethod method : {EnergyMethod::kNode, EnergyMethod::kMeasured, EnergyMethod::kTdp})
      for (double pue : {1.05, 1.1, 1.58})
        for (const char* grid : {"ca-qc", "fr", "us", "in"})
          for (bool priced : {false, true}) {
            RunCostInputs in = baseline_inputs(cat, acc.name, method, pue, grid, priced);
            if (method == EnergyMethod::kNode && !in.node_power_w) continue;
            if (method == EnergyMethod::kMeasured && !in.power_per_gpu_w) continue;
            const RunCost base = estimate_run_cost(in);
            // Every candidate pinned, and the catalog search.
            std::vector<WhatIfOptions> variants;
            variants.push_back(catalog_levers(cat, acc.name));
            for (const auto& m : cat.accelerators) {
              WhatIfOptions o = catalog_levers(cat, acc.name);
              o.machines = {m};
              o.machine_pinned = true;
              o.regions = {cat.grid(grid == std::string("ca-qc") ? "pl" : "ca-qc")};
              variants.push_back(o);
            }
            for (const auto& o : variants) {
              const auto rows = four_ms(in, base, o);
              REQUIRE(rows.size() == 6);
              CHECK(rows.front().lever == Lever::kBaseline);
              EXPECT_CLOSE(rows.front().energy_kwh, base.energy_kwh, 1e-12);
              CHECK(rows.front().cost_usd.has_value() == priced);
              CHECK(base.cost_usd.has_value() == priced);
              if (priced) EXPECT_CLOSE(*rows.front().cost_usd, *base.cost_usd, 1e-12);
              for (const auto& r : rows) {
                INFO(acc.name << " " << kEnergyMethodNames.name(method) << " PUE " << pue << " " << grid << " "
                              << kLeverNames.name(r.lever) << " " << r.change << ": " << r.note);
                CHECK(r.energy_kwh <= base.energy_kwh * (1 + 1e-12));
                CHECK(r.co2e_kg <= base.co2e_kg * (1 + 1e-12));
                CHECK(r.net_co2e_kg <= base.net_co2e_kg * (1 + 1e-12));
                CHECK(r.cost_usd.has_value() == priced);
                if (priced) CHECK(*r.cost_usd <= *base.cost_usd * (1 + 1e-12));
                CHECK(r.energy_factor >= 1 - 1e-12);
                CHECK(r.co2e_factor >= 1 - 1e-12);
                if (!r.applied && r.lever != Lever::kAll) {
                  EXPECT_CLOSE(r.energy_kwh, base.energy_kwh, 1e-12);
                  EXPECT_CLOSE(r.co2e_kg, base.co2e_kg, 1e-12);
                  CHECK(!r.note.empty());
                }
              }
              // All four together: the levers' factors multiply.
              const double energy = row(rows, Lever::kModel).energy_factor * row(rows, Lever::kMachine).energy_factor *
                                    row(rows, Lever::kMechanization).energy_factor;
              EXPECT_CLOSE(row(rows, Lever::kAll).energy_factor, energy, 1e-9);
              EXPECT_CLOSE(row(rows, Lever::kAll).co2e_factor, energy * row(rows, Lever::kMap).co2e_factor, 1e-9);
              ++cases;
            }
          }
  CHECK(cases > 1000);
}

TEST_CASE("each lever's factor: Model 1/3, Mechanization PUE ratio, Map intensity ratio, Machine power per peak") {
  const catalog::Catalog cat = catalog::load_catalog();
  const RunCostInputs in = baseline_inputs(cat, "a100-sxm4-80gb", EnergyMethod::kNode, 1.58, "us", false);
  const RunCost base = estimate_run_cost(in);
  const auto rows = four_ms(in, base, catalog_levers(cat, "a100-sxm4-80gb"));
  // Model: Patterson et al. 2022's low end, 3x less compute, so 3x less time, energy and carbon.
  CHECK(cat.run_cost_constants().model_factor == 3);
  EXPECT_CLOSE(row(rows, Lever::kModel).energy_factor, 3, 1e-12);
  EXPECT_CLOSE(row(rows, Lever::kModel).time_s, base.time_s / 3, 1e-12);
  // Mechanization: industry-average PUE 1.58 to an efficient datacenter's 1.10.
  EXPECT_CLOSE(row(rows, Lever::kMechanization).energy_factor, 1.58 / 1.10, 1e-12);
  EXPECT_CLOSE(row(rows, Lever::kMechanization).time_s, base.time_s, 1e-12);
  // Map: the catalog's cleanest grid (Quebec, 1.5 g/kWh) against the US 429 g/kWh; energy unchanged.
  double cleanest = 1e9;
  for (const auto& g : cat.grids) cleanest = std::min(cleanest, g.intensity_kg_per_kwh);
  EXPECT_CLOSE(row(rows, Lever::kMap).co2e_factor, 0.429 / cleanest, 1e-12);
  EXPECT_CLOSE(row(rows, Lever::kMap).energy_kwh, base.energy_kwh, 1e-12);
  // Machine, unpriced: the catalog accelerator with the most peak FLOP/s per watt of system power; the A100 has
  // no measurement, so every candidate is compared at TDP × utilisation + the same host overhead.
  const WhatIfRow& machine = row(rows, Lever::kMachine);
  REQUIRE(machine.applied);
  const double host = cat.run_cost_constants().host_overhead_w, u = cat.run_cost_constants().tdp_utilisation;
  auto per_watt = [&](const catalog::Accelerator& a) {
    return a.peak_16bit_flops / tdp_system_power(a, u, host).watts;
  };
  const catalog::Accelerator* best = nullptr;
  for (const auto& a : cat.accelerators)
    if (!best || per_watt(a) > per_watt(*best)) best = &a;
  CHECK(machine.change == "a100-sxm4-80gb -> " + best->name);
  EXPECT_CLOSE(machine.energy_factor, per_watt(*best) / per_watt(cat.accelerator("a100-sxm4-80gb")), 1e-12);
  EXPECT_CLOSE(machine.time_s, base.time_s * 312e12 / best->peak_16bit_flops, 1e-12);
}

TEST_CASE("a lever that would not help keeps the baseline and says why") {
  const catalog::Catalog cat = catalog::load_catalog();
  const RunCostInputs in = baseline_inputs(cat, "h100-sxm5-80gb", EnergyMethod::kTdp, 1.1, "ca-qc", false);
  const RunCost base = estimate_run_cost(in);
  WhatIfOptions o = catalog_levers(cat, "h100-sxm5-80gb");
  o.machines = {cat.accelerator("v100-sxm2-32gb")};  // older, less efficient
  o.machine_pinned = true;
  o.model_factor = 1;
  const auto rows = four_ms(in, base, o);
  for (Lever lever : {Lever::kModel, Lever::kMachine, Lever::kMechanization, Lever::kMap}) {
    INFO(kLeverNames.name(lever));
    CHECK_FALSE(row(rows, lever).applied);
    CHECK(row(rows, lever).energy_factor == 1);
    CHECK(row(rows, lever).co2e_factor == 1);
  }
  CHECK(row(rows, Lever::kMachine).note.find("v100-sxm2-32gb would need") != std::string::npos);
  CHECK(row(rows, Lever::kMechanization).note.find("already") != std::string::npos);
  // The map's candidates are a list, not the catalog: the note says none of them is cleaner, not that no grid is.
  CHECK(row(rows, Lever::kMap).note == "none of the " + std::to_string(o.regions.size()) +
                                           " candidate regions is cleaner than the baseline's 1.5 g/kWh (another is "
                                           "named with --whatif-grid)");
  CHECK_FALSE(row(rows, Lever::kAll).applied);
  // Pinning the baseline's own accelerator changes nothing.
  o.machines = {cat.accelerator("h100-sxm5-80gb")};
  const auto same = four_ms(in, base, o);
  CHECK_FALSE(row(same, Lever::kMachine).applied);
  // With prices, a slower machine that saves energy but costs more accelerator-hours is refused.
  RunCostInputs priced = baseline_inputs(cat, "a100-sxm4-80gb", EnergyMethod::kNode, 1.1, "us", true);
  const RunCost pb = estimate_run_cost(priced);
  WhatIfOptions tpu = catalog_levers(cat, "a100-sxm4-80gb");
  tpu.machines = {cat.accelerator("tpu-v4")};
  tpu.machine_pinned = true;
  const auto priced_rows = four_ms(priced, pb, tpu);
  const WhatIfRow& m = row(priced_rows, Lever::kMachine);
  CHECK_FALSE(m.applied);
  INFO(m.note);
  CHECK(m.note.find("cost more") != std::string::npos);
}

TEST_CASE("what-if options are validated") {
  const catalog::Catalog cat = catalog::load_catalog();
  WhatIfOptions o = catalog_levers(cat, "a100-sxm4-80gb");
  o.model_factor = 0.5;
  CHECK_THROWS_AS(o.validate(), InputError);
  o.model_factor = 3;
  o.mechanization_pue = 0.9;
  CHECK_THROWS_AS(o.validate(), InputError);
  o.mechanization_pue = 1.1;
  CHECK_NOTHROW(o.validate());
  for (auto l : {Lever::kBaseline, Lever::kModel, Lever::kMachine, Lever::kMechanization, Lever::kMap, Lever::kAll})
    CHECK(kLeverNames.parse(kLeverNames.name(l), "x") == l);
}

namespace {

// The Machine row of `base` run with `method`, against the single pinned `candidate`.
WhatIfRow pinned_machine(const catalog::Catalog& cat, const std::string& base, const std::string& candidate,
                         EnergyMethod method) {
  const RunCostInputs in = baseline_inputs(cat, base, method, 1.1, "us", false);
  WhatIfOptions o = catalog_levers(cat, base);
  o.machines = {cat.accelerator(candidate)};
  o.machine_pinned = true;
  return row(four_ms(in, estimate_run_cost(in), o), Lever::kMachine);
}

}  // namespace

TEST_CASE("Machine compares like with like: measured with measured, else TDP with TDP and the same host") {
  const catalog::Catalog cat = catalog::load_catalog();
  const double host = cat.run_cost_constants().host_overhead_w, u = cat.run_cost_constants().tdp_utilisation;
  // A100 (TDP only) against TPU v4 (measured 170 W in the catalog): both at TDP + host (1.31x), never 170 W
  // against 400 W + host (3.3x).
  REQUIRE(cat.accelerator("tpu-v4").measured_power_w.has_value());
  const WhatIfRow tpu = pinned_machine(cat, "a100-sxm4-80gb", "tpu-v4", EnergyMethod::kTdp);
  REQUIRE(tpu.applied);
  CHECK(tpu.note.find("measured") == std::string::npos);
  const auto& a = cat.accelerator("a100-sxm4-80gb");
  const auto& t = cat.accelerator("tpu-v4");
  EXPECT_CLOSE(1 / tpu.energy_factor,
               (tdp_system_power(t, u, host).watts / t.peak_16bit_flops) /
                   (tdp_system_power(a, u, host).watts / a.peak_16bit_flops),
               1e-12);
  // TPU v3 against V100, both measured (Patterson et al. 2021 Table 4: 283 W and 330 W): measured with measured.
  const WhatIfRow v3 = pinned_machine(cat, "v100-sxm2-32gb", "tpu-v3", EnergyMethod::kMeasured);
  REQUIRE(v3.applied);
  CHECK(v3.note.find("measured 283 W") != std::string::npos);
  CHECK(v3.note.find("measured 330 W") != std::string::npos);
  EXPECT_CLOSE(v3.energy_factor, (330.0 / 125e12) / (283.0 / 123e12), 1e-12);
}

TEST_CASE("default levers: Map among the stated cloud regions, each row beside Patterson's range, all <= ~1000x") {
  const catalog::Catalog cat = catalog::load_catalog();
  for (const auto& acc : cat.accelerators) {
    INFO(acc.name);
    RunCostInputs in = baseline_inputs(cat, acc.name, EnergyMethod::kTdp, 1.0, "us", false);
    resolve_energy({}, cat, acc, nullptr, &in);
    in.flops = 1e23;
    in.gpus = 512;
    in.peak_flops_per_gpu = acc.peak_16bit_flops;
    in.utilisation = 0.4;
    const WhatIfOptions o = whatif_options(resolve_levers({}, cat), cat, acc, in);
    // The Map candidates are grids.yaml's map_candidate regions, all cloud regions.
    REQUIRE(!o.regions.empty());
    for (const auto& g : o.regions) CHECK(g.map_candidate);
    for (const auto& g : o.regions) CHECK(g.kind == "cloud");
    const auto rows = four_ms(in, estimate_run_cost(in), o);
    const WhatIfRow& map = row(rows, Lever::kMap);
    REQUIRE(map.applied);
    // The cleanest candidate, Finland (46 g/kWh), against the US 429 g/kWh: 9.3x, inside Patterson's 5-10x.
    CHECK(map.change.find("gcp-europe-north1") != std::string::npos);
    EXPECT_CLOSE(map.co2e_factor, 429.0 / 46.0, 1e-12);
    REQUIRE(map.published_range.has_value());
    CHECK((*map.published_range)[0] == 5);
    CHECK((*map.published_range)[1] == 10);
    // The default PUE is a typical datacenter's, so Mechanization moves to a hyperscaler's: 1.56 / 1.10.
    EXPECT_CLOSE(row(rows, Lever::kMechanization).energy_factor, 1.56 / 1.10, 1e-12);
    // All four together stay within Patterson et al. 2022's order of magnitude (energy /100, CO2e /1000):
    // within a factor sqrt(10) of it from any baseline, the 2016 P100 of their own comparison included, and
    // inside it from an A100 (107x CO2e: 3 x 2.7 x 1.42 x 9.3).
    const WhatIfRow& all = rows.back();
    REQUIRE(all.published_range.has_value());
    CHECK(all.energy_factor < (*all.published_range)[0] * std::sqrt(10.0));
    CHECK(all.co2e_factor < (*all.published_range)[1] * std::sqrt(10.0));
    CHECK(all.co2e_factor > 10);
    if (acc.name.rfind("a100", 0) == 0) {
      CHECK(all.energy_factor <= (*all.published_range)[0]);
      CHECK(all.co2e_factor <= (*all.published_range)[1]);
    }
  }
}
