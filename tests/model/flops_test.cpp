// Tests for lib/model/flops: Chinchilla Table A4 ratios and the MT-NLG per-iteration counts.
#include "model/flops.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "model/params.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::model;

TEST_CASE("Hoffmann et al. 2022 Table A4: App. F count over 6ND, without embeddings and logits") {
  struct Row { int layers; long long d, ffw; int heads; long long kq; double ratio; };
  for (const Row& r : {Row{10, 640, 2560, 10, 64, 1.03}, Row{20, 1024, 4096, 16, 64, 1.10},
                       Row{24, 1280, 5120, 10, 128, 1.08}, Row{26, 1792, 7168, 14, 128, 1.04},
                       Row{28, 2048, 8192, 16, 128, 1.03}, Row{40, 3584, 14336, 28, 128, 0.99}}) {
    Architecture a;
    a.layers = r.layers;
    a.d_model = r.d;
    a.ffn = r.ffw;
    a.heads = r.heads;
    a.head_size = r.kq;
    a.vocab = 32000;
    a.seq = 2048;
    a.positional = PositionalEncoding::kRelative;
    // N counts one vocabulary matrix and the relative-position projections (13·L·d² + V·d).
    const double n = count_params(a).total();
    const double ratio = chinchilla_training_flops_per_sequence(a, 2048, false) / (6 * n * 2048);
    INFO(r.layers << "x" << r.d << ": " << ratio);
    CHECK(std::fabs(ratio - r.ratio) <= 0.01);
  }
}

TEST_CASE("MT-NLG shape, B = 1920: eq. 3 1.6926e19 and eq. 7 1.2701e19 FLOPs per iteration") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& a = cat.model("mt-nlg-530b").architecture;
  EXPECT_CLOSE(narayanan_eq3_flops(a, 1920, 2048), 1.6926e19, 1e-3);
  EXPECT_CLOSE(korthikanti_eq7_flops(a, 1920, 2048), 1.2701e19, 1e-3);
  CHECK(korthikanti_eq8_flops(a, 1920, 2048) > korthikanti_eq7_flops(a, 1920, 2048));
  for (auto c : {FlopsConvention::k6nd, FlopsConvention::kChinchilla, FlopsConvention::kMegatron})
    CHECK(kFlopsConventionNames.parse(kFlopsConventionNames.name(c), "x") == c);
}
