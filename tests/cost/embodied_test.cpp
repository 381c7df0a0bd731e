// Tests for lib/cost/embodied and the cost.yaml constants: LLMCarbon's per-chip figures, the 5-year
// amortisation, and the run's embodied share.
#include "cost/embodied.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "cost/run_cost.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;

TEST_CASE("LLMCarbon hardware.csv chip figures: V100 9.78 kg, H100 14.652 kg, TPUv3 7 kg, TPUv4 6.4 kg") {
  const catalog::Catalog cat = catalog::load_catalog();
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  EXPECT_CLOSE(k.lifetime_s, 5 * 365 * 86400.0, 1e-12);  // embodied.py: lifespan = 5 × 365 days
  EXPECT_CLOSE(k.memory_kg_per_gb, 0.4, 1e-12);          // DRAM, Micron 18 nm
  const struct {
    const char* name;
    double chip_kg;
  } rows[] = {{"v100-sxm2-32gb", 9.78}, {"h100-sxm5-80gb", 14.652}, {"tpu-v3", 7.0}, {"tpu-v4", 6.4}};
  for (const auto& r : rows) {
    INFO(r.name);
    const catalog::EmbodiedCarbon* die = cat.find_embodied_carbon(r.name);
    REQUIRE(die != nullptr);
    const catalog::Accelerator& acc = cat.accelerator(r.name);
    EXPECT_CLOSE(cost::embodied_kg_per_accelerator(*die, acc, 0), r.chip_kg, 1e-12);
    // The device memory adds 0.4 kg per GB.
    EXPECT_CLOSE(cost::embodied_kg_per_accelerator(*die, acc, k.memory_kg_per_gb),
                 r.chip_kg + 0.4 * acc.memory_bytes / 1e9, 1e-12);
  }
  CHECK(cat.find_embodied_carbon("mi300x") == nullptr);
}

TEST_CASE("embodied share: accelerators x kg x run time / lifetime, linear in each") {
  const double year = 365 * 86400.0, life = 5 * year;
  // 1,000 H100 (14.652 + 80 × 0.4 = 46.652 kg each) for one year: a fifth of 46,652 kg.
  EXPECT_CLOSE(cost::amortised_embodied_kg(1000, 46.652, year, life), 9330.4, 1e-12);
  EXPECT_CLOSE(cost::amortised_embodied_kg(2000, 46.652, year, life), 2 * 9330.4, 1e-12);
  EXPECT_CLOSE(cost::amortised_embodied_kg(1000, 46.652, 2 * year, life), 2 * 9330.4, 1e-12);
  // Through the run cost: opt-in, share = time / lifetime, total = operational + embodied.
  cost::RunCostInputs in;
  in.gpus = 1000;
  in.peak_flops_per_gpu = 989.4e12;
  in.utilisation = 0.4;
  in.flops = year * 1000 * 989.4e12 * 0.4;
  in.power_per_gpu_w = 1000;
  in.intensity_kg_per_kwh = 0.429;
  const cost::RunCost without = cost::estimate_run_cost(in);
  CHECK_FALSE(without.embodied);
  CHECK(without.embodied_co2e_kg == 0);
  in.embodied_kg_per_gpu = 46.652;
  const cost::RunCost with = cost::estimate_run_cost(in);
  CHECK(with.embodied);
  EXPECT_CLOSE(with.embodied_share, 0.2, 1e-12);
  EXPECT_CLOSE(with.embodied_co2e_kg, 9330.4, 1e-12);
  EXPECT_CLOSE(with.total_co2e_kg, with.co2e_kg + 9330.4, 1e-12);
  EXPECT_CLOSE(with.co2e_kg, without.co2e_kg, 1e-12);
  in.embodied_kg_per_gpu = -1;
  CHECK_THROWS_AS(cost::estimate_run_cost(in), InputError);
}

TEST_CASE("cost.yaml entries can be overridden by name, and a malformed one names file:line") {
  catalog::Catalog cat = catalog::embedded_catalog();
  catalog::merge_catalog_text(R"(run_cost:
  - name: default
    tdp_method: {tdp_utilisation: 0.8, host_overhead: 150 W, source: mine}
    embodied: {lifetime_years: 4, source: mine}
    whatif: {model_factor: 5, model_source: mine, mechanization_pue: 1.08, mechanization_source: mine,
             published_ranges: {model: [3, 10], machine: [2, 5], mechanization: [1.4, 2], map: [5, 10], all: [100, 1000]},
             ranges_source: mine}
    default_pue: industry-average
    default_pue_source: mine
    plan: {batch_coefficient: 0.3, batch_exponent: 0.33, batch_source: mine, min_mfu: 0.3, min_mfu_source: mine}
embodied_carbon:
  - {name: mi300x, die_area_cm2: 10, kg_per_cm2: 1.8, source: mine}
)",
                              "mine.yaml", &cat);
  catalog::check_references(cat);
  const catalog::RunCostConstants& k = cat.run_cost_constants();
  CHECK(k.tdp_utilisation == 0.8);
  CHECK(k.host_overhead_w == 150);
  CHECK(k.lifetime_s == doctest::Approx(4 * 365 * 86400.0));
  CHECK(k.memory_kg_per_gb == 0);
  CHECK(k.model_factor == 5);
  CHECK(k.default_pue == "industry-average");
  CHECK(k.min_mfu == 0.3);
  CHECK(k.published_ranges[3][1] == 10);
  REQUIRE(cat.find_embodied_carbon("mi300x") != nullptr);
  catalog::Catalog bad = catalog::embedded_catalog();
  try {
    catalog::merge_catalog_text(
        "run_cost:\n  - name: default\n    tdp_method: {tdp_utilisation: 1.5, host_overhead: 1 W, source: x}\n",
        "bad.yaml", &bad);
    FAIL("accepted a TDP utilisation above 1");
  } catch (const CatalogError& e) {
    CHECK(std::string(e.what()).find("bad.yaml:3") != std::string::npos);
  }
  catalog::Catalog dangling = catalog::embedded_catalog();
  catalog::merge_catalog_text("embodied_carbon:\n  - {name: a100-sxm9, die_area_cm2: 8, kg_per_cm2: 1, source: x}\n",
                              "dangling.yaml", &dangling);
  CHECK_THROWS_AS(catalog::check_references(dangling), CatalogError);
}
