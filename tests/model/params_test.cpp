// Tests for lib/model/params and shape: Narayanan eq. 2, Chinchilla Table A9 rows, reference models,
// ST-MoE-32B's total vs active parameters, and shaping 70B near Chinchilla.
#include "model/params.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "model/shape.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::model;

namespace {
Architecture gpt(int layers, long long h, int heads, long long vocab, long long seq) {
  return {.name = "", .layers = layers, .d_model = h, .heads = heads, .vocab = vocab, .seq = seq, .moe = {}};
}
}  // namespace

TEST_CASE("Narayanan et al. 2021 eq. 2: 529.6B, 1008.0B and BLOOM 176.28B") {
  // eq. 2 omits the final LayerNorm (2h), well below the printed precision.
  EXPECT_CLOSE(count_params(gpt(105, 20480, 128, 51200, 2048)).total(), 529.6e9, 5e-4);
  EXPECT_CLOSE(count_params(gpt(128, 25600, 160, 51200, 2048)).total(), 1008.0e9, 5e-4);
  Architecture bloom = gpt(70, 14336, 112, 250880, 2048);
  EXPECT_CLOSE(count_params(bloom).total(), 176.28e9, 5e-4);
}

TEST_CASE("catalog models land on their published sizes") {
  const catalog::Catalog cat = catalog::load_catalog();
  for (const char* id : {"gpt3-175b", "gopher-280b", "chinchilla-70b", "mt-nlg-530b", "megatron-1t", "bloom-176b",
                         "palm-540b", "llama2-7b", "llama2-13b", "llama2-70b", "llama3-8b", "llama3-70b",
                         "llama3-405b", "nemotron4-340b", "gpt-oss-120b", "gpt-oss-20b"}) {
    const auto& m = cat.model(id);
    INFO(id << ": " << count_params(m.architecture).total());
    EXPECT_CLOSE(count_params(m.architecture).total(), m.published_params, 0.03);
  }
}

TEST_CASE("modern blocks count exactly: SwiGLU, GQA, RoPE, RMSNorm, untied heads, squared ReLU") {
  const catalog::Catalog cat = catalog::load_catalog();
  // Released checkpoints: Llama-2 7B holds 6,738,415,616 parameters and Llama-3.1 405B 405,853,388,800
  // (3 SwiGLU matrices, no position table, RMSNorm scales only, separate embedding and output layer). By hand
  // for 405B: 126 × (2·16384² + 2·16384·1024 + 3·16384·53248 + 2·16384) + 2 × 128256 × 16384 + 16384.
  CHECK(count_params(cat.model("llama2-7b").architecture).total() == 6'738'415'616.0);
  const ParamCount llama3 = count_params(cat.model("llama3-405b").architecture);
  CHECK(llama3.total() == 405'853'388'800.0);
  CHECK(llama3.position_embedding == 0);
  CHECK(llama3.output_head == 128256.0 * 16384);
  // Nemotron-4 340B: squared ReLU keeps two MLP matrices (a gated MLP would add 96 × 18432 × 73728).
  Architecture nemotron = cat.model("nemotron4-340b").architecture;
  const double two_matrices = count_params(nemotron).mlp;
  CHECK(two_matrices == 96 * 2.0 * 18432 * 73728);
  nemotron.activation = Activation::kSwiglu;
  CHECK(count_params(nemotron).mlp - two_matrices == 96.0 * 18432 * 73728);
}

TEST_CASE("gpt-oss: the model card's total and active counts") {
  // OpenAI 2025 model card Table 1: 116.83B total / 5.13B active (120b), 20.91B / 3.61B (20b); the active count
  // leaves out the input embedding (a lookup), and keeps the unembedding.
  const catalog::Catalog cat = catalog::load_catalog();
  struct Row { const char* id; double total; double active; };
  for (const Row& r : {Row{"gpt-oss-120b", 116.83e9, 5.13e9}, Row{"gpt-oss-20b", 20.91e9, 3.61e9}}) {
    const ParamCount p = count_params(cat.model(r.id).architecture);
    INFO(r.id << ": " << p.total() << " total, " << p.active - p.token_embedding << " active");
    EXPECT_CLOSE(p.total(), r.total, 5e-4);
    EXPECT_CLOSE(p.active - p.token_embedding, r.active, 5e-3);
  }
}

TEST_CASE("Chinchilla Table A9 rows within 1 % (44M, 6796M, 16183M)") {
  // params(M)/d_model/ffw/kv/heads/layers; vocab 32,000, relative positions (no learned table).
  struct Row { double params_m; long long d; long long ffw; long long kv; int heads; int layers; };
  for (const Row& r : {Row{44, 512, 2048, 64, 8, 8}, Row{6796, 3584, 14336, 128, 28, 40}, Row{16183, 5120, 20480, 128, 40, 47}}) {
    Architecture a = gpt(r.layers, r.d, r.heads, 32000, 2048);
    a.ffn = r.ffw;
    a.head_size = r.kv;
    a.positional = PositionalEncoding::kRelative;
    INFO(r.params_m);
    EXPECT_CLOSE(count_params(a).total() / 1e6, r.params_m, 0.01);
  }
}

TEST_CASE("ST-MoE-32B: about 269B parameters, active ones like a ~32B dense model") {
  const catalog::Catalog cat = catalog::load_catalog();
  const auto& m = cat.model("st-moe-32b");
  const ParamCount p = count_params(m.architecture);
  EXPECT_CLOSE(p.total(), 269e9, 0.03);
  CHECK(p.active <= p.total());
  CHECK(p.active > 25e9);
  CHECK(p.active < 40e9);
}

TEST_CASE("shaping 70B in the Chinchilla family lands near 80 layers x 8192") {
  ShapeOptions o;
  o.reference = catalog::load_catalog().model("chinchilla-70b").architecture;
  o.tp = 8;
  const ShapeResult r = shape_architecture(70e9, o);
  EXPECT_CLOSE(r.best.params, 70e9, 0.02);
  CHECK(r.best.architecture.d_model % 128 == 0);
  CHECK(r.best.architecture.heads % 8 == 0);
  CHECK(r.best.architecture.layers >= 70);
  CHECK(r.best.architecture.layers <= 90);
  CHECK(r.best.architecture.d_model >= 7680);
  CHECK(r.best.architecture.d_model <= 8704);
}
