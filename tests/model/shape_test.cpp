// Tests for lib/model/shape (shaping after a family of shapes.yaml) and lib/model/moe_advice: 70B lands on
// Chinchilla's 80 x 8192, every proposal is within 2 % and meets the constraints, MoE totals exceed actives;
// shape_architecture (used by plan) with layers a multiple of the pipeline's.
#include "model/shape.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "model/moe_advice.hpp"
#include "model/params.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::model;

namespace {

FamilyShapeOptions options_for(const catalog::Catalog& cat, const std::string& style, int tp = 1) {
  FamilyShapeOptions o;
  o.family = cat.shape_family(style);
  o.block = cat.model(o.family.block).architecture;
  o.tp = tp;
  return o;
}

// Every constraint the shaping promises, checked on one candidate.
void check_constraints(const FamilyShapeCandidate& c, const FamilyShapeOptions& o, double target) {
  const Architecture& a = c.architecture;
  CHECK(a.d_model % 128 == 0);
  const long long head = a.effective_head_size();
  CHECK((head == 64 || head == 128));
  CHECK(a.heads * head == a.d_model);
  CHECK(a.heads % o.tp == 0);
  CHECK(a.effective_kv_heads() % o.tp == 0);
  if (o.moe.enabled()) CHECK(a.layers % o.moe.every == 0);
  // The stored counts are the exact counts of the architecture, and within 2 % of the target.
  const ParamCount pc = count_params(a);
  CHECK(c.params == pc.total());
  CHECK(c.active_params == pc.active);
  const double counted = o.target_active ? pc.active : pc.total();
  CHECK(std::fabs(counted / target - 1) <= 0.02);
  CHECK(c.ratio == doctest::Approx(counted / target).epsilon(1e-12));
}

}  // namespace

TEST_CASE("shapes.yaml: the families, their sources and ST-MoE's recommendations load") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& chinchilla = cat.shape_family("chinchilla");
  CHECK(chinchilla.rule == ShapeRule::kAspect);
  CHECK(chinchilla.rows.size() == 51);  // Table A9's 50 models and Chinchilla 70B (Table 4)
  CHECK(chinchilla.rows.front().params == 44e6);
  CHECK(chinchilla.rows.front().d_model == 512);
  CHECK(chinchilla.source.find("Table A9") != std::string::npos);
  CHECK(cat.shape_family("kaplan").rows.size() == 1);
  const auto& megatron = cat.shape_family("megatron");
  CHECK(megatron.rule == ShapeRule::kBands);
  CHECK(megatron.bands.size() == 15);
  CHECK(megatron.vocab_pad_per_tp == 128);
  for (const char* name : {"llama2", "llama3"}) {
    const auto& family = cat.shape_family(name);
    CHECK(family.rule == ShapeRule::kAspect);
    CHECK(family.rows.size() == 3);
    CHECK(cat.find_model(family.block) != nullptr);
  }
  CHECK(cat.shape_family("llama3").rows.back().layers == 126);
  const auto& st = cat.moe_recommendation();
  CHECK(st.top_k == 2);
  CHECK(st.capacity_factor == 1.25);
  CHECK(st.eval_capacity_factor == 2.0);
  CHECK(st.max_experts == 256);
  CHECK(st.max_experts_per_device == 1);
  CHECK(st.source.find("Zoph et al. 2022") != std::string::npos);
  CHECK_THROWS_AS(cat.shape_family("chinchila"), InputError);
}

TEST_CASE("preferred shapes: Table A9's aspect grows from ~60 to ~100, Kaplan's is constant, NeMo's bands") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& c = cat.shape_family("chinchilla");
  // At 70B the Chinchilla 70B row dominates the kernel: 8192 / 80 = 102.4.
  EXPECT_CLOSE(preferred_shape(c, 70e9).aspect, 102.4, 0.01);
  CHECK(preferred_shape(c, 70e9).head_size == 128);
  CHECK(preferred_shape(c, 44e6).head_size == 64);   // the small rows use 64-wide heads
  CHECK(preferred_shape(c, 44e6).aspect < 70);
  CHECK(preferred_shape(c, 1e9).aspect > preferred_shape(c, 100e6).aspect);
  CHECK(!preferred_shape(c, 70e9).beyond_family);
  CHECK(preferred_shape(c, 1e12).beyond_family);
  EXPECT_CLOSE(preferred_shape(c, 1e12).aspect, 102.4, 0.01);  // held at the largest row beyond the table
  const auto& k = cat.shape_family("kaplan");
  for (double n : {1e8, 1e10, 1e12}) EXPECT_CLOSE(preferred_shape(k, n).aspect, 1600.0 / 48, 1e-12);
  const auto& m = cat.shape_family("megatron");
  CHECK(preferred_shape(m, 70e9).d_model == 10240);
  CHECK(preferred_shape(m, 70e9).heads == 80);
  CHECK(preferred_shape(m, 175e9).d_model == 12288);
  CHECK(preferred_shape(m, 530e9).d_model == 20480);
  CHECK(preferred_shape(m, 530e9).head_size == 128);  // 20480 / 128 heads = 160 is not allowed; 128 is nearest
  CHECK(preferred_shape(m, 2e12).beyond_family);
}

TEST_CASE("70B in the Chinchilla style lands on Chinchilla's own 80 layers x 8192, 64 heads of 128") {
  const catalog::Catalog cat = catalog::load_catalog();
  for (int tp : {1, 8}) {
    INFO("tp " << tp);
    const FamilyShapeOptions o = options_for(cat, "chinchilla", tp);
    const FamilyShapeResult r = shape_by_family(70e9, o);
    CHECK(r.best.architecture.layers == 80);
    CHECK(r.best.architecture.d_model == 8192);
    CHECK(r.best.architecture.heads == 64);
    CHECK(r.best.architecture.effective_head_size() == 128);
    CHECK(r.best.architecture.ffn == 32768);
    // 13·L·h² (relative positions) + V·h = 69.80B + 0.26B, within 0.1 % of 70B.
    EXPECT_CLOSE(r.best.params, 70.07e9, 1e-3);
    CHECK(r.alternatives.size() == 3);
    check_constraints(r.best, o, 70e9);
    for (const auto& alt : r.alternatives) {
      check_constraints(alt, o, 70e9);
      CHECK(alt.score >= r.best.score);
      CHECK((alt.architecture.layers != 80 || alt.architecture.d_model != 8192));
    }
  }
}

TEST_CASE("Llama 3 style: 70B lands on Llama-3 70B's 80 x 8192 with its grouped-query, untied SwiGLU block") {
  const catalog::Catalog cat = catalog::load_catalog();
  const FamilyShapeOptions o = options_for(cat, "llama3", 8);
  const FamilyShapeResult r = shape_by_family(70.6e9, o);
  const Architecture& a = r.best.architecture;
  CHECK(a.layers == 80);
  CHECK(a.d_model == 8192);
  CHECK(a.heads == 64);
  CHECK(a.effective_kv_heads() == 8);  // Table 3: 8 key/value heads
  CHECK(a.ffn == 28672);               // 3.5 d_model
  CHECK(a.activation == Activation::kSwiglu);
  CHECK(!a.tied_embeddings);
  CHECK(a.positional == PositionalEncoding::kRotary);
  CHECK(a.vocab == 128256);
  check_constraints(r.best, o, 70.6e9);
  // 405B: Llama-3 405B itself (Table 3): 126 x 16384, 128 heads, 8 key/value heads and the ffn of 53,248
  // (3.25 d_model, the nearest row's, not the 70B block's 3.5, which took 119 layers).
  const FamilyShapeResult big = shape_by_family(405e9, o);
  const Architecture& b = big.best.architecture;
  CHECK(b.layers == 126);
  CHECK(b.d_model == 16384);
  CHECK(b.heads == 128);
  CHECK(b.kv_heads == 8);
  CHECK(b.ffn == 53248);
  check_constraints(big.best, o, 405e9);
  // 8B: Llama-3 8B itself, 32 x 4096 with 8 key/value heads (the 70B block's group of 8 would give 4), ffn 14,336.
  const Architecture& small = shape_by_family(8.03e9, o).best.architecture;
  CHECK(small.layers == 32);
  CHECK(small.d_model == 4096);
  CHECK(small.kv_heads == 8);
  CHECK(small.ffn == 14336);
  // Past 8-way TP the key/value heads split over TP too (Megatron: query groups % TP == 0).
  const FamilyShapeResult wide = shape_by_family(405e9, options_for(cat, "llama3", 16));
  CHECK(wide.best.architecture.kv_heads == 16);
  CHECK(wide.best.architecture.heads % 16 == 0);
}

TEST_CASE("Llama 2 style: multi-head attention at 7B and 13B, 8 key/value heads at 34B and 70B") {
  const catalog::Catalog cat = catalog::load_catalog();
  const FamilyShapeOptions o = options_for(cat, "llama2", 8);
  for (const double params : {6.74e9, 13e9}) {
    INFO(params);
    const Architecture& a = shape_by_family(params, o).best.architecture;
    CHECK(a.effective_kv_heads() == a.heads);
  }
  // The published 7B and 13B themselves, with their released configs' ffn (11008 and 13824, not the 70B's 3.5
  // d_model, which gave 7B 31 x 3840 with 30 heads).
  const Architecture& seven = shape_by_family(6.74e9, o).best.architecture;
  CHECK(std::tuple(seven.layers, seven.d_model, seven.heads, seven.ffn) == std::tuple(32, 4096LL, 32, 11008LL));
  const Architecture& thirteen = shape_by_family(13e9, o).best.architecture;
  CHECK(std::tuple(thirteen.layers, thirteen.d_model, thirteen.heads, thirteen.ffn) ==
        std::tuple(40, 5120LL, 40, 13824LL));
  for (const double params : {34e9, 69e9}) {
    INFO(params);
    const Architecture& a = shape_by_family(params, o).best.architecture;
    CHECK(a.kv_heads == 8);
    CHECK(a.heads % 8 == 0);
  }
}

TEST_CASE("Kaplan and Megatron styles: 1.5B near GPT-2's 48 x 1600 aspect, 175B on NeMo's 12288 band") {
  const catalog::Catalog cat = catalog::load_catalog();
  FamilyShapeOptions k = options_for(cat, "kaplan");
  const FamilyShapeResult kr = shape_by_family(1.5e9, k);
  const double aspect = static_cast<double>(kr.best.architecture.d_model) / kr.best.architecture.layers;
  CHECK(std::fabs(std::log(aspect / (1600.0 / 48))) < 0.1);
  CHECK(kr.best.architecture.effective_head_size() == 64);
  CHECK(kr.best.architecture.seq == 1024);  // the GPT-2 block's context
  CHECK(kr.best.architecture.positional == PositionalEncoding::kLearned);

  FamilyShapeOptions m = options_for(cat, "megatron", 8);
  m.vocab = 50257;
  const FamilyShapeResult mr = shape_by_family(175e9, m);
  CHECK(mr.best.architecture.d_model == 12288);
  CHECK(mr.best.architecture.heads == 96);
  CHECK(mr.best.architecture.layers == 96);  // GPT-3 175B's depth: eq. 2 gives 174.6B
  CHECK(padded_vocab(mr.best.architecture) == 51200);  // 50257 padded to 128 x TP 8
  check_constraints(mr.best, m, 175e9);
}

TEST_CASE("constraints hold over sizes, TP degrees and styles") {
  const catalog::Catalog cat = catalog::load_catalog();
  int shaped = 0;
  for (const char* style : {"chinchilla", "kaplan", "megatron"})
    for (int tp : {1, 2, 4, 8})
      for (double n : {125e6, 350e6, 1.3e9, 6.7e9, 13e9, 30e9, 70e9, 175e9, 530e9, 1e12}) {
        INFO(style << " tp " << tp << " N " << n);
        FamilyShapeOptions o = options_for(cat, style, tp);
        o.alternatives = 5;
        FamilyShapeResult r;
        try {
          r = shape_by_family(n, o);
        } catch (const InfeasibleError&) {
          // Only tiny models at high TP may be impossible: d_model ≥ 64·TP leaves no small enough shape.
          CHECK(n < 1e9);
          continue;
        }
        ++shaped;
        check_constraints(r.best, o, n);
        for (const auto& alt : r.alternatives) check_constraints(alt, o, n);
      }
  CHECK(shaped >= 115);  // of 120
}

TEST_CASE("MoE shaping: total above active, and --active-params targets the active count") {
  const catalog::Catalog cat = catalog::load_catalog();
  FamilyShapeOptions o = options_for(cat, "chinchilla", 8);
  o.moe.experts = 64;
  o.moe.top_k = 2;
  o.moe.every = 4;
  const FamilyShapeResult r = shape_by_family(269e9, o);
  check_constraints(r.best, o, 269e9);
  CHECK(r.best.params > r.best.active_params);
  CHECK(r.best.architecture.moe.experts == 64);
  // 64 experts in every 4th layer: total / active = (3 + 64) / (3 + 2) MLPs per 4 layers, attention aside: 5.5–10x.
  const double ratio = r.best.params / r.best.active_params;
  CHECK(ratio > 5);
  CHECK(ratio < 11);
  for (const auto& alt : r.alternatives) CHECK(alt.params > alt.active_params);

  o.target_active = true;
  const FamilyShapeResult a = shape_by_family(32e9, o);
  check_constraints(a.best, o, 32e9);
  CHECK(a.best.params > 5 * 32e9);

  for (int experts : {2, 8, 128}) {
    INFO(experts);
    FamilyShapeOptions e = options_for(cat, "megatron", 4);
    e.moe.experts = experts;
    e.moe.every = 2;
    const FamilyShapeResult er = shape_by_family(50e9, e);
    CHECK(er.best.params >= er.best.active_params);
    check_constraints(er.best, e, 50e9);
  }
}

TEST_CASE("shaping rejects bad options with FieldErrors naming the field") {
  const catalog::Catalog cat = catalog::load_catalog();
  auto message = [&](auto&& tweak, double target = 70e9) {
    FamilyShapeOptions o = options_for(cat, "chinchilla");
    tweak(o);
    try {
      (void)shape_by_family(target, o);
    } catch (const FieldError& e) {
      return e.field() + " | " + e.message();
    }
    return std::string("no error");
  };
  CHECK(message([](auto&) {}, 0) == "params | must be a positive number");
  CHECK(message([](auto&) {}, -5) == "params | must be a positive number");
  CHECK(message([](auto& o) { o.target_active = true, o.moe.experts = 8; }, 0) == "active_params | must be a positive number");
  CHECK(message([](auto& o) { o.tp = 6; }) == "tp | 6 is not a power of 2; accepted: 1, 2, 4, 8, 16, ...");
  CHECK(message([](auto& o) { o.moe.experts = 1; }) == "experts | a mixture needs at least 2 experts, got 1");
  CHECK(message([](auto& o) { o.moe.experts = 4, o.moe.top_k = 5; }) ==
        "moe_top_k | 5 exceeds the 4 experts (a token cannot be routed to more experts than exist)");
  CHECK(message([](auto& o) { o.moe.experts = 4, o.moe.every = 0; }) == "moe_every | must be at least 1, got 0");
  CHECK(message([](auto& o) { o.target_active = true; }) ==
        "active_params | a target of active parameters needs a mixture of experts (a dense model is all active)");
  CHECK(message([](auto& o) { o.alternatives = -1; }) == "alternatives | must not be negative");
  // A valid request that nothing satisfies is infeasible, not invalid.
  FamilyShapeOptions tiny = options_for(cat, "chinchilla", 64);
  CHECK_THROWS_AS(shape_by_family(10e6, tiny), InfeasibleError);
}

TEST_CASE("ST-MoE recommendations: silent when followed, one line per departure, each citing the paper") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& st = cat.moe_recommendation();
  MoeConfig moe;
  moe.experts = 64;
  moe.top_k = 2;
  moe.capacity_factor = 1.25;
  moe.eval_capacity_factor = 2.0;
  CHECK(moe_departures(moe, 64, st).empty());
  CHECK(moe_departures(moe, 0, st).empty());
  CHECK(experts_per_device(64, 16) == 4);
  CHECK(experts_per_device(64, 64) == 1);
  const auto per_device = moe_departures(moe, 16, st);
  REQUIRE(per_device.size() == 1);
  CHECK(per_device[0] ==
        "4 experts per device (64 over 16 expert-parallel devices) exceed the recommended at most 1 (ST-MoE, Zoph et al. 2022)");
  moe.top_k = 1;
  moe.capacity_factor = 1.0;
  moe.eval_capacity_factor = 1.5;
  moe.experts = 512;
  const auto all = moe_departures(moe, 512, st);
  REQUIRE(all.size() == 4);
  CHECK(all[0] == "top-1 routing departs from the recommended top-2 (ST-MoE, Zoph et al. 2022)");
  CHECK(all[1] == "training capacity factor 1 departs from the recommended 1.25 (ST-MoE, Zoph et al. 2022)");
  CHECK(all[2] == "evaluation capacity factor 1.5 departs from the recommended 2 (ST-MoE, Zoph et al. 2022)");
  CHECK(all[3] == "512 experts exceed the recommended at most 256 (ST-MoE, Zoph et al. 2022)");
  CHECK(moe_departures(MoeConfig{}, 8, st).empty());  // dense: nothing to check
}

TEST_CASE("shape_architecture: a layer multiple keeps the count within 2 % and d_model a multiple of 128") {
  const auto cat = catalog::load_catalog();
  ShapeOptions o;
  o.reference = cat.model("chinchilla-70b").architecture;
  o.tp = 8;
  // Chinchilla's own size lands on its 80 layers both ways (80 is a multiple of 16).
  const ShapeResult free = shape_architecture(70e9, o);
  o.layer_multiple = 16;
  const ShapeResult piped = shape_architecture(70e9, o);
  CHECK(piped.best.architecture.layers % 16 == 0);
  for (const ShapeCandidate* c : {&piped.best, piped.alternatives.empty() ? &piped.best : &piped.alternatives.front()}) {
    CHECK(c->architecture.layers % 16 == 0);
    CHECK(c->architecture.d_model % 128 == 0);
    CHECK(c->architecture.heads % 8 == 0);
    CHECK(std::fabs(c->ratio - 1) <= 0.02);
    CHECK(c->params == count_params(c->architecture).total());
  }
  // The multiple moves the depth by less than half a multiple from the free shape's (d_model absorbs the rest).
  CHECK(std::abs(piped.best.architecture.layers - free.best.architecture.layers) <= 8);
  o.layer_multiple = 0;
  CHECK_THROWS_AS(shape_architecture(70e9, o), InputError);
}
