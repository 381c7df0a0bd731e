// Tests for lib/parallel/search: the MT-NLG layouts, invariants of the search, and bad pins.
#include "parallel/search.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "catalog/catalog.hpp"
#include "core/error.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

struct Setup {
  JobSpec job;
  ClusterSpec cluster;
};

Setup mt_nlg_on(int gpus, long long global_batch = 1920) {
  const catalog::Catalog cat = catalog::load_catalog();
  Setup s;
  s.job.architecture = cat.model("mt-nlg-530b").architecture;
  s.job.seq = 2048;
  s.job.global_batch = global_batch;
  const catalog::Node& node = cat.node("dgx-a100");
  s.cluster.accelerator = cat.accelerator("a100-sxm4-80gb");
  s.cluster.gpus = gpus;
  s.cluster.gpus_per_node = node.gpus_per_node;
  s.cluster.intra_node_bandwidth_bytes_per_s = node.intra_node_bandwidth_bytes_per_s;
  s.cluster.inter_node_bandwidth_bytes_per_s = node.inter_node_bandwidth_bytes_per_s / node.gpus_per_node;
  return s;
}

}  // namespace

TEST_CASE("MT-NLG pinned to TP 8 x PP 35: feasible, per-GPU throughput falls as DP grows") {
  double previous = 1e300;
  for (int gpus : {2240, 2800, 3360}) {
    Setup s = mt_nlg_on(gpus);
    SearchOptions o;
    o.pins.tp = 8;
    o.pins.pp = 35;
    const SearchResult r = search_layouts(s.job, s.cluster, o);
    REQUIRE(!r.layouts.empty());
    const RankedLayout& best = r.layouts.front();
    CHECK(best.layout.dp == gpus / 280);
    CHECK(best.memory.total_bytes() < 80e9);
    INFO(gpus << " GPUs: " << best.time.model_tflops_per_gpu << " TFLOP/s per GPU");
    CHECK(best.time.model_tflops_per_gpu < previous);
    previous = best.time.model_tflops_per_gpu;
  }
}

TEST_CASE("MT-NLG unpinned: tensor parallelism stays inside the node and memory below 80 GiB") {
  Setup s = mt_nlg_on(3360);
  SearchOptions o;
  const SearchResult r = search_layouts(s.job, s.cluster, o);
  REQUIRE(!r.layouts.empty());
  for (const auto& l : r.layouts) {
    CHECK(l.layout.tp <= 8);
    CHECK(l.memory.total_bytes() < 80 * kGiB);
  }
  CHECK(r.evaluated > 100);
  CHECK(!r.pruned.empty());
  // Without ZeRO, shallow pipelines cannot hold 530B; the family says how much it would need.
  o.pins.zero_stage = 0;
  const SearchResult replicated = search_layouts(s.job, s.cluster, o);
  bool named = false;
  for (const auto& p : replicated.pruned) named |= p.reason.find("GiB/GPU >") != std::string::npos;
  CHECK(named);
}

TEST_CASE("search invariants") {
  Setup s = mt_nlg_on(2240);
  SearchOptions pinned;
  pinned.pins.tp = 8;
  pinned.pins.pp = 35;
  pinned.pins.micro_batch = 1;
  pinned.pins.recompute = Recompute::kFull;
  const double pinned_best = search_layouts(s.job, s.cluster, pinned).layouts.front().time.step_time_s;
  SearchOptions looser = pinned;
  looser.pins.recompute.reset();
  looser.pins.micro_batch.reset();
  CHECK(search_layouts(s.job, s.cluster, looser).layouts.front().time.step_time_s <= pinned_best);
  SearchOptions open;
  CHECK(search_layouts(s.job, s.cluster, open).layouts.front().time.step_time_s <= pinned_best);

  // Doubling the global batch never lowers tokens/s for a fixed layout.
  Layout l{8, 35, 8, 1, 1, 1, 1, Recompute::kSelective, true};
  const double tokens = estimate_step_time(s.job, s.cluster, l).tokens_per_s;
  Setup doubled = mt_nlg_on(2240, 3840);
  CHECK(estimate_step_time(doubled.job, doubled.cluster, l).tokens_per_s >= tokens);
}

TEST_CASE("bad pins and infeasible jobs") {
  Setup s = mt_nlg_on(2240);
  SearchOptions o;
  o.pins.tp = 3;  // 128 heads are not divisible by 3
  CHECK_THROWS_AS(search_layouts(s.job, s.cluster, o), InputError);
  o.pins.tp = 8;
  o.pins.pp = 4;  // 105 layers
  CHECK_THROWS_AS(search_layouts(s.job, s.cluster, o), InputError);
  o = {};
  o.pins.zero_stage = 5;
  CHECK_THROWS_AS(search_layouts(s.job, s.cluster, o), InputError);
  Setup small = mt_nlg_on(8, 8);  // 530B on one node cannot fit
  const SearchResult none = search_layouts(small.job, small.cluster, SearchOptions{});
  REQUIRE(none.infeasible);
  CHECK(none.layouts.empty());
  CHECK(none.evaluated > 0);
  const Infeasibility& why = *none.infeasible;
  CHECK(why.reason.find("the smallest needs") != std::string::npos);
  // The closest miss: ~530B parameters' states sharded 8 ways by ZeRO-3 alone are ~1 TiB per GPU.
  REQUIRE(why.needed_memory_bytes.has_value());
  REQUIRE(why.closest.has_value());
  CHECK(*why.needed_memory_bytes == none.min_memory_bytes);
  CHECK(*why.needed_memory_bytes > 10 * why.usable_memory_bytes);
  CHECK(why.usable_memory_bytes == doctest::Approx(0.95 * 80e9));
  CHECK(estimate_memory(small.job, *why.closest).total_bytes() == *why.needed_memory_bytes);
  CHECK(why.closest->gpus() == 8);
  REQUIRE(!why.changes.empty());
  CHECK(why.changes.front().field == "gpus");
  CHECK(*why.changes.front().number % 8 == 0);
  CHECK(*why.changes.front().number >= 8 * *why.needed_memory_bytes / why.usable_memory_bytes);
  CHECK(describe(why).find("to fit: gpus ") != std::string::npos);
  CHECK_THROWS_AS(require_feasible(none), InfeasibleError);
  // A pinned memory lever is suggested back, as data.
  SearchOptions replicated;
  replicated.pins.zero_stage = 0;
  replicated.pins.recompute = Recompute::kNone;
  const SearchResult none0 = search_layouts(small.job, small.cluster, replicated);
  REQUIRE(none0.infeasible);
  const auto& changes = none0.infeasible->changes;
  CHECK(std::any_of(changes.begin(), changes.end(),
                    [](const SuggestedChange& c) { return c.field == "zero_stage" && c.number == 3; }));
  CHECK(std::any_of(changes.begin(), changes.end(),
                    [](const SuggestedChange& c) { return c.field == "recompute" && c.text == "full"; }));
  CHECK_THROWS_AS(search_layouts(mt_nlg_on(2244).job, mt_nlg_on(2244).cluster, SearchOptions{}), InputError);
  // Nothing pinned and no valid layout: a job that cannot run here (infeasible, with the nearest shapes that
  // run), not bad input. 1921 = 17·113 sequences share no factor with 2240 GPUs, so DP is 1 and PP 280 > 105.
  Setup odd = mt_nlg_on(2240, 1921);
  const SearchResult invalid = search_layouts(odd.job, odd.cluster, SearchOptions{});
  REQUIRE(invalid.infeasible);
  CHECK(invalid.evaluated == 0);
  CHECK(invalid.infeasible->reason.find("no valid layout of 1921 sequences on 2240 GPUs") == 0);
  // No GPU count within 16 nodes runs 1921 sequences (DP 17 wants TP·PP 128 or 136: 105 layers split neither
  // way evenly); the nearest batch some DP divides does.
  const auto& shapes = invalid.infeasible->changes;
  REQUIRE(shapes.size() == 1);
  CHECK(shapes[0].field == "global_batch");
  CHECK(*shapes[0].number == 1920);
  odd.job.global_batch = *shapes[0].number;
  CHECK(search_layouts(odd.job, odd.cluster, SearchOptions{}).feasible());
  odd.job.global_batch = 1921;
  // With a degree pinned the same job is bad input: the pins are what the user can change.
  SearchOptions pinned;
  pinned.pins.tp = 8;
  CHECK_THROWS_AS(search_layouts(odd.job, odd.cluster, pinned), InputError);
}
