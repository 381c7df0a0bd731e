// Tests for lib/model/flops_count: a workload counted under each convention, with its parts and defaults.
#include "model/flops_count.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "model/params.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::model;

TEST_CASE("6nd: 70B on 1.4T tokens is 5.88e23 FLOPs and full recompute is 8·N·D (Narayanan eq. 4)") {
  const FlopsCount c = count_flops_6nd(70e9, 1.4e12, 2048, Recompute::kNone);
  EXPECT_CLOSE(c.model_flops, 5.88e23, 1e-12);
  CHECK(c.hardware_flops == c.model_flops);
  EXPECT_CLOSE(c.flops_per_token(), 6 * 70e9, 1e-12);
  CHECK(c.params_kind == ParamsKind::kGiven);
  CHECK(c.parts.empty());
  const FlopsCount full = count_flops_6nd(70e9, 1.4e12, 2048, Recompute::kFull);
  EXPECT_CLOSE(full.hardware_flops, 8 * 70e9 * 1.4e12, 1e-12);
  EXPECT_CLOSE(full.model_flops, 5.88e23, 1e-12);
  try {
    (void)count_flops_6nd(70e9, 1.4e12, 2048, Recompute::kSelective);
    FAIL("selective recompute under 6nd must be refused");
  } catch (const FieldError& e) {
    CHECK(e.field() == "recompute");
  }
  CHECK_THROWS_AS(count_flops_6nd(70e9, 0, 2048, Recompute::kNone), FieldError);
}

TEST_CASE("megatron defaults to full recompute and reproduces Narayanan eq. 3 for MT-NLG, B = 1920") {
  const Architecture a = catalog::load_catalog().model("mt-nlg-530b").architecture;
  CHECK(default_recompute(FlopsConvention::kMegatron) == Recompute::kFull);
  CHECK(default_recompute(FlopsConvention::kChinchilla) == Recompute::kNone);
  const double tokens = 1920.0 * 2048;
  const FlopsCount c = count_flops(a, tokens, 2048, FlopsConvention::kMegatron, Recompute::kFull);
  EXPECT_CLOSE(c.hardware_flops, 1.6926e19, 1e-3);  // the published per-iteration figure
  EXPECT_CLOSE(c.model_flops, 1.2701e19, 1e-3);
  EXPECT_CLOSE(c.hardware_flops, narayanan_eq3_flops(a, 1920, 2048), 1e-12);
  double sum = 0;
  for (const auto& p : c.parts) sum += p.flops;
  EXPECT_CLOSE(sum, c.hardware_flops, 1e-12);  // the parts, recompute included, add up to the hardware FLOPs
  CHECK(c.parts.back().name == "recompute");
}

TEST_CASE("chinchilla: the App. F parts add up to 3 × forward and selective recompute repeats the attention core") {
  const Architecture a = catalog::load_catalog().model("chinchilla-70b").architecture;
  const FlopsCount c = count_flops(a, 1.4e12, 2048, FlopsConvention::kChinchilla, Recompute::kNone);
  EXPECT_CLOSE(c.model_flops, chinchilla_training_flops_per_sequence(a, 2048) * 1.4e12 / 2048, 1e-12);
  double sum = 0;
  for (const auto& p : c.parts) sum += p.flops;
  EXPECT_CLOSE(sum, c.model_flops, 1e-12);
  // Within a few per cent of 6·N·D (Hoffmann et al. 2022 Table A4: the ratio is near 1 at this size).
  EXPECT_CLOSE(c.model_flops / (6 * count_params(a).total() * 1.4e12), 1.0, 0.1);
  const FlopsCount s = count_flops(a, 1.4e12, 2048, FlopsConvention::kChinchilla, Recompute::kSelective);
  EXPECT_CLOSE(s.hardware_flops - s.model_flops,
               chinchilla_recompute_flops_per_sequence(a, 2048, Recompute::kSelective) * 1.4e12 / 2048, 1e-12);
}

TEST_CASE("6nd of a mixture of experts counts the active parameters and non_embedding drops the embeddings") {
  const catalog::Catalog cat = catalog::load_catalog();
  const Architecture moe = cat.model("st-moe-32b").architecture;
  const FlopsCount c = count_flops(moe, 1e12, 2048, FlopsConvention::k6nd, Recompute::kNone);
  CHECK(c.params_kind == ParamsKind::kActive);
  CHECK(c.params == count_params(moe).active);
  const Architecture dense = cat.model("chinchilla-70b").architecture;
  const FlopsCount n = count_flops(dense, 1e12, 2048, FlopsConvention::k6nd, Recompute::kNone, true);
  CHECK(n.params_kind == ParamsKind::kNonEmbedding);
  CHECK(n.params == count_params(dense).non_embedding());
  // An MoE's non-embedding count is of its active parameters: ST-MoE-32B's experts a token skips do no work
  // (counting them all made the FLOPs about 9x too high).
  const ParamCount p = count_params(moe);
  const FlopsCount m = count_flops(moe, 1e12, 2048, FlopsConvention::k6nd, Recompute::kNone, true);
  CHECK(m.params == p.active - p.token_embedding - p.position_embedding);
  CHECK(m.params < c.params);
  CHECK(m.model_flops == doctest::Approx(6 * m.params * 1e12));
}
