// Tests for lib/model/flops: Chinchilla Table A4 ratios, the MT-NLG per-iteration counts, the general Megatron
// count, MoE (ST-MoE-32B, capacity factor, router) and recompute.
#include "model/flops.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "model/params.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::model;

TEST_CASE("Hoffmann et al. 2022 Table A4: App. F count over 6ND, without embeddings and logits") {
  struct Row {
    int layers;
    long long d, ffw;
    int heads;
    long long kq;
    double ratio;
  };
  for (const Row& r :
       {Row{10, 640, 2560, 10, 64, 1.03}, Row{20, 1024, 4096, 16, 64, 1.10}, Row{24, 1280, 5120, 10, 128, 1.08},
        Row{26, 1792, 7168, 14, 128, 1.04}, Row{28, 2048, 8192, 16, 128, 1.03}, Row{40, 3584, 14336, 28, 128, 0.99}}) {
    const Architecture a{.name = "",
                         .layers = r.layers,
                         .d_model = r.d,
                         .heads = r.heads,
                         .head_size = r.kq,
                         .ffn = r.ffw,
                         .vocab = 32000,
                         .seq = 2048,
                         .positional = PositionalEncoding::kRelative,
                         .moe = {}};
    // N counts one vocabulary matrix and the relative-position projections (13·L·d² + V·d).
    const double n = count_params(a).total();
    const double ratio = chinchilla_training_flops_per_sequence(a, 2048, false) / (6 * n * 2048);
    INFO(r.layers << "x" << r.d << ": " << ratio);
    CHECK(std::fabs(ratio - r.ratio) <= 0.01);
  }
}

TEST_CASE("grouped-query attention: the projections count the key and value heads in both conventions") {
  // Llama 3 70B's shape: 64 query heads of 128 share 8 key-value heads.
  const catalog::Catalog cat = catalog::load_catalog();
  const Architecture gqa = cat.model("llama3-70b").architecture;
  REQUIRE(gqa.effective_kv_heads() == 8);
  Architecture mha = gqa;
  mha.kv_heads = mha.heads;
  const double s = 8192, d = 8192, L = 80, q = 64 * 128, kv = 8 * 128;
  // Q, K and V: 2·s·d·(q + 2·kv) per layer, forward; output: 2·s·q·d.
  EXPECT_CLOSE(chinchilla_forward_flops(gqa, 8192).qkv, L * 2 * s * d * (q + 2 * kv), 1e-12);
  EXPECT_CLOSE(chinchilla_forward_flops(mha, 8192).qkv, L * 2 * 3 * s * d * q, 1e-12);  // App. F's 2·3·s·d·kh
  // The chinchilla count's projections are the megatron count's (which it gives forward and backward, per token).
  const ChinchillaForward c = chinchilla_forward_flops(gqa, 8192);
  EXPECT_CLOSE(3 * (c.qkv + c.output_projection), megatron_flops(gqa, 1, 8192, Recompute::kNone).attention_projections,
               1e-12);
  // Fewer key-value heads are fewer parameters and fewer FLOPs, by the same 2·d·(q − kv)·2 per layer and token.
  const double params_saved = count_params(mha).total() - count_params(gqa).total();
  const double flops_saved = chinchilla_forward_flops(mha, 8192).qkv - c.qkv;
  EXPECT_CLOSE(flops_saved / s, 2 * params_saved, 1e-12);
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

TEST_CASE("the general Megatron count is Korthikanti eq. 7 / eq. 8 and Narayanan eq. 3 for a dense GPT block") {
  const catalog::Catalog cat = catalog::load_catalog();
  for (const char* name : {"mt-nlg-530b", "megatron-1t"}) {
    INFO(name);
    const auto& a = cat.model(name).architecture;
    EXPECT_CLOSE(megatron_flops(a, 1920, 2048, Recompute::kNone).model(), korthikanti_eq7_flops(a, 1920, 2048), 1e-12);
    EXPECT_CLOSE(megatron_flops(a, 1920, 2048, Recompute::kSelective).hardware(), korthikanti_eq8_flops(a, 1920, 2048),
                 1e-12);
    EXPECT_CLOSE(megatron_flops(a, 1920, 2048, Recompute::kFull).hardware(), narayanan_eq3_flops(a, 1920, 2048), 1e-12);
  }
  // MT-NLG, B = 1920: the published per-iteration figures.
  const auto& mtnlg = cat.model("mt-nlg-530b").architecture;
  EXPECT_CLOSE(megatron_flops(mtnlg, 1920, 2048, Recompute::kFull).hardware(), 1.6926e19, 1e-3);
  EXPECT_CLOSE(megatron_flops(mtnlg, 1920, 2048, Recompute::kFull).model(), 1.2701e19, 1e-3);
  for (auto r : {Recompute::kNone, Recompute::kSelective, Recompute::kFull})
    CHECK(kRecomputeNames.parse(kRecomputeNames.name(r), "x") == r);
}

TEST_CASE("ST-MoE-32B: FLOPs per token of a ~32B dense model, though it holds ~269B parameters") {
  // Zoph et al. 2022: "a sparse model to 269B parameters, with a computational cost comparable to a 32B dense
  // encoder-decoder Transformer". Top-2 of 64 experts in every 4th layer, capacity factor 1.25.
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& a = cat.model("st-moe-32b").architecture;
  const ParamCount p = count_params(a);
  CHECK(p.total() > 250e9);
  CHECK(p.active < p.total());
  const double dense_32b = 6 * 32e9;
  const double chinchilla = chinchilla_training_flops_per_sequence(a, a.seq) / a.seq;
  const double megatron = megatron_flops(a, 1, a.seq, Recompute::kNone).model() / a.seq;
  INFO("chinchilla " << chinchilla << " megatron " << megatron);
  CHECK(std::fabs(chinchilla / dense_32b - 1) < 0.1);
  CHECK(std::fabs(megatron / dense_32b - 1) < 0.1);
  CHECK(chinchilla < 6 * p.total() / 5);  // nowhere near the total
}

TEST_CASE("MoE FLOPs: top-k x capacity factor experts per token, plus the router (2·d·E per MoE layer, x3)") {
  const Architecture dense{.name = "", .layers = 8, .d_model = 1024, .heads = 16, .vocab = 32000, .seq = 1024, .moe = {}};
  const long long s = dense.seq;
  Architecture moe = dense;
  moe.moe.experts = 16;
  moe.moe.top_k = 2;
  moe.moe.every = 2;
  moe.moe.capacity_factor = 1.25;
  const ChinchillaForward fd = chinchilla_forward_flops(dense, s), fm = chinchilla_forward_flops(moe, s);
  // Half the layers keep a dense MLP; the other half run 2 × 1.25 experts of the same size.
  EXPECT_CLOSE(fm.dense, fd.dense / 2, 1e-12);
  EXPECT_CLOSE(fm.experts, fd.dense / 2 * 2 * 1.25, 1e-12);
  EXPECT_CLOSE(fm.router, 4 * 2.0 * s * 1024 * 16, 1e-12);
  const MegatronFlops md = megatron_flops(dense, 1, s, Recompute::kNone),
                      mm = megatron_flops(moe, 1, s, Recompute::kNone);
  EXPECT_CLOSE(mm.experts, md.mlp / 2 * 2 * 1.25, 1e-12);
  EXPECT_CLOSE(mm.router / s, 4 * 3 * 2.0 * 1024 * 16, 1e-12);  // per token: MoE layers × fwd+bwd × 2·d·E
  EXPECT_CLOSE(mm.attention_projections, md.attention_projections, 1e-12);
  // The padded compute is linear in the capacity factor.
  Architecture cf2 = moe;
  cf2.moe.capacity_factor = 2.5;
  EXPECT_CLOSE(chinchilla_forward_flops(cf2, s).experts, 2 * fm.experts, 1e-12);
  // One expert, top-1, capacity 1, every layer: the dense model plus the router.
  Architecture one = dense;
  one.moe.experts = 1;
  one.moe.top_k = 1;
  one.moe.every = 1;
  one.moe.capacity_factor = 1;
  const MegatronFlops mo = megatron_flops(one, 3, s, Recompute::kNone),
                      md3 = megatron_flops(dense, 3, s, Recompute::kNone);
  EXPECT_CLOSE(mo.model() - mo.router, md3.model(), 1e-12);
  EXPECT_CLOSE(chinchilla_forward_flops(one, s).total() - chinchilla_forward_flops(one, s).router, fd.total(), 1e-12);
  // Active parameters never exceed the total.
  CHECK(count_params(moe).active <= count_params(moe).total());
}

TEST_CASE("chinchilla recompute: full adds one forward of every layer, selective one of the attention core") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& a = cat.model("chinchilla-70b").architecture;
  const ChinchillaForward f = chinchilla_forward_flops(a, 2048);
  CHECK(chinchilla_recompute_flops_per_sequence(a, 2048, Recompute::kNone) == 0);
  EXPECT_CLOSE(chinchilla_recompute_flops_per_sequence(a, 2048, Recompute::kSelective),
               f.attention_logits + f.softmax + f.attention_reduce, 1e-12);
  EXPECT_CLOSE(chinchilla_recompute_flops_per_sequence(a, 2048, Recompute::kFull), f.total(false), 1e-12);
  // Without embeddings and logits, full recompute makes training 4 forwards instead of 3 (Narayanan eq. 3's 96/72).
  EXPECT_CLOSE((chinchilla_training_flops_per_sequence(a, 2048, false) +
                chinchilla_recompute_flops_per_sequence(a, 2048, Recompute::kFull)) /
                   chinchilla_training_flops_per_sequence(a, 2048, false),
               4.0 / 3.0, 1e-12);
}
