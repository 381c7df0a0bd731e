// Tests of the plan pipeline (lib/plan): self-consistent utilisation for a GPU-days budget, a FLOPs budget
// passed through unchanged, and budget validation.
#include "plan/plan.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
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
  CHECK(r.cost.days == doctest::Approx(30).epsilon(0.01));
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
  CHECK(b.cost.time_s > a.cost.time_s);
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
