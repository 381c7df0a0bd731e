// Tests of the plan pipeline (lib/plan): self-consistent utilisation for a GPU-days budget, a FLOPs budget
// passed through unchanged, the 4Ms table and the energy methods, budget validation, a depth that pipeline
// stages divide, and a given architecture planned as it is.
#include "plan/plan.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "model/params.hpp"
#include "parallel/cluster.hpp"
#include "scaling/allocate.hpp"
#include "scaling/loss_law.hpp"

namespace {

using namespace isoflop;

plan::PlanOptions options_for(const catalog::Catalog& cat, long long gpus) {
  parallel::ClusterRequest request;
  request.gpu = "a100-sxm4-80gb";
  request.gpus = gpus;
  const auto cluster = parallel::resolve_cluster(cat, request);
  plan::PlanOptions o;
  o.law = cat.law(scaling::kDefaultLaw);
  o.band_laws = cat.laws;
  o.cluster = cluster.spec;
  o.node = cat.node(cluster.spec.node_name);
  o.family = cat.model("chinchilla-70b").architecture;
  o.run_cost.pue = 1.1;
  o.run_cost.intensity_kg_per_kwh = 0.429;
  o.run_cost.host_overhead_w = cat.run_cost_constants().host_overhead_w;
  o.whatif.model_factor = cat.run_cost_constants().model_factor;
  o.whatif.machines = cat.accelerators;
  o.whatif.regions = cat.grids;
  o.whatif.host_overhead_w = cat.run_cost_constants().host_overhead_w;
  o.whatif.mechanization_pue = cat.run_cost_constants().mechanization_pue;
  return o;
}

}  // namespace

TEST_CASE("GPU-days budget: the FLOPs are what the best layout's MFU delivers in that time") {
  const auto cat = catalog::load_catalog();
  const auto o = options_for(cat, 3360);
  plan::Budget budget;
  budget.time_s = 30 * 86400.0;
  const auto r = plan::make_plan(budget, o);
  CHECK(r.converged);
  REQUIRE(!r.layouts.layouts.empty());
  // The utilisation used is the best layout's predicted MFU, not a constant ...
  CHECK(r.mfu == doctest::Approx(r.layouts.layouts.front().time.mfu));
  CHECK(r.mfu > 0.2);
  CHECK(r.mfu < 0.7);
  // ... and the budget FLOPs are n · peak · MFU · t within the iteration's tolerance.
  const double delivered = 3360 * 312e12 * r.mfu * budget.time_s.value();
  CHECK(std::fabs(r.flops / delivered - 1) < 5e-3);
  CHECK(r.cost->result.days == doctest::Approx(30).epsilon(0.01));
  // The best layout fits the accelerator and keeps tensor parallelism inside the node.
  CHECK(r.layouts.layouts.front().memory.total_bytes() < 80.0 * 1024 * 1024 * 1024);
  CHECK(r.layouts.layouts.front().layout.tp <= 8);
}

TEST_CASE("FLOPs budget: the allocation uses the budget as given, and more compute means a larger model") {
  const auto cat = catalog::load_catalog();
  const auto o = options_for(cat, 1024);
  plan::Budget small, large;
  small.flops = 1e23;
  large.flops = 1e24;
  const auto a = plan::make_plan(small, o);
  const auto b = plan::make_plan(large, o);
  CHECK(a.flops == 1e23);
  CHECK(a.allocation.flops == doctest::Approx(1e23).epsilon(1e-6));
  CHECK(b.allocation.params > a.allocation.params);
  CHECK(b.allocation.tokens > a.allocation.tokens);
  CHECK(b.cost->result.time_s > a.cost->result.time_s);
}

TEST_CASE("budget validation: exactly one positive budget") {
  plan::Budget none;
  CHECK_THROWS_AS(none.validate(), InputError);
  plan::Budget two;
  two.flops = 1e23;
  two.time_s = 86400;
  CHECK_THROWS_AS(two.validate(), InputError);
  plan::Budget negative;
  negative.flops = -1;
  CHECK_THROWS_AS(negative.validate(), InputError);
  plan::Budget ok;
  ok.flops = 1e23;
  CHECK_NOTHROW(ok.validate());
}

TEST_CASE("the plan's cost carries the 4Ms table: baseline first, no lever above it, all levers multiplied") {
  const auto cat = catalog::load_catalog();
  const auto o = options_for(cat, 3360);
  plan::Budget budget;
  budget.time_s = 30 * 86400.0;
  const auto r = plan::make_plan(budget, o);
  REQUIRE(r.cost->whatif.size() == 6);
  CHECK(r.cost->whatif.front().lever == cost::Lever::kBaseline);
  CHECK(r.cost->whatif.back().lever == cost::Lever::kAll);
  CHECK(r.cost->whatif.front().energy_kwh == doctest::Approx(r.cost->result.energy_kwh));
  CHECK(r.cost->whatif.front().co2e_kg == doctest::Approx(r.cost->result.co2e_kg));
  double energy = 1, co2e = 1;
  for (const auto& row : r.cost->whatif) {
    INFO(cost::kLeverNames.name(row.lever));
    CHECK(row.energy_kwh <= r.cost->result.energy_kwh * (1 + 1e-12));
    CHECK(row.co2e_kg <= r.cost->result.co2e_kg * (1 + 1e-12));
    if (row.lever != cost::Lever::kBaseline && row.lever != cost::Lever::kAll) {
      energy *= row.energy_factor;
      co2e *= row.co2e_factor;
    }
  }
  CHECK(r.cost->whatif.back().energy_factor == doctest::Approx(energy));
  // Map alone changes carbon, not energy.
  CHECK(r.cost->whatif.back().co2e_factor == doctest::Approx(co2e));
  CHECK(r.cost->whatif[1].energy_factor == doctest::Approx(3));  // Model: 3x less compute
  // Node power by default (420 DGX A100 at 6.5 kW); all three methods are reported.
  CHECK(r.cost->result.energy_method == cost::EnergyMethod::kNode);
  CHECK(r.cost->result.power_w == doctest::Approx(2.73e6));
  REQUIRE(r.cost->result.energy_methods.size() == 3);
  CHECK(r.cost->result.energy_methods[2].power.power_w == doctest::Approx(3360 * (400.0 + o.run_cost.host_overhead_w)));
}

TEST_CASE("an energy budget is spent at the chosen method's power") {
  const auto cat = catalog::load_catalog();
  auto o = options_for(cat, 1024);
  plan::Budget budget;
  budget.energy_kwh = 1e6;
  const auto node = plan::make_plan(budget, o);
  o.run_cost.energy_method = cost::EnergyMethod::kTdp;
  const auto tdp = plan::make_plan(budget, o);
  // The same energy either way (within the utilisation iteration's tolerance); the TDP method's lower power
  // buys more time, so more compute.
  INFO("converged " << node.converged << " " << tdp.converged << ", iterations " << tdp.iterations);
  CHECK(node.cost->result.energy_kwh == doctest::Approx(1e6).epsilon(0.02));
  CHECK(tdp.cost->result.energy_kwh == doctest::Approx(1e6).epsilon(0.02));
  CHECK(tdp.cost->result.time_s > node.cost->result.time_s);
  CHECK(tdp.flops > node.flops);
  o.run_cost.energy_method = cost::EnergyMethod::kMeasured;  // an A100 has no measured power in the catalog
  CHECK_THROWS_AS(plan::make_plan(budget, o), InputError);
}

TEST_CASE("a given architecture: the allocation is its exact count and D = C/(6N), with the law's loss") {
  const auto cat = catalog::load_catalog();
  auto o = options_for(cat, 1024);
  o.architecture = cat.model("chinchilla-70b").architecture;
  o.architecture->name = "chinchilla-70b";
  plan::Budget budget;
  budget.flops = 5.76e23;  // Chinchilla's budget (Hoffmann et al. 2022)
  const auto r = plan::make_plan(budget, o);
  const double n = model::count_params(*o.architecture).total();
  CHECK(r.job.architecture == *o.architecture);
  CHECK(r.family == "chinchilla-70b");
  CHECK(r.allocation.method == "fixed-params");
  CHECK(r.allocation.params == n);
  CHECK(r.allocation.tokens == doctest::Approx(5.76e23 / (6 * n)).epsilon(1e-12));
  REQUIRE(r.allocation.loss.has_value());
  CHECK(*r.allocation.loss == doctest::Approx(scaling::predicted_loss(o.law, n, r.allocation.tokens)));
  CHECK(r.params_ratio_to_target() == 1.0);
  // About 1.4T tokens for 70B: the paper's own allocation.
  CHECK(r.allocation.tokens == doctest::Approx(1.4e12).epsilon(0.05));
  CHECK(r.feasible());
}
