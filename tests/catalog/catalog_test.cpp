// Tests for lib/catalog: the embedded catalogs load with every required entry; overlays replace and
// add entries; malformed catalogs are rejected with file:line, the field and the rule.
#include "catalog/catalog.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "catalog/field_reader.hpp"
#include "core/error.hpp"
#include "support/expect_close.hpp"

using namespace isoflop;
using namespace isoflop::catalog;

namespace {

std::string error_of(const std::string& text) {
  Catalog c;
  try {
    merge_catalog_text(text, "user.yaml", &c);
  } catch (const CatalogError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the embedded catalog holds every required id") {
  const Catalog c = load_catalog();
  for (const char* id : {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb",
                         "mi250x", "mi300x", "tpu-v3", "tpu-v4"}) {
    INFO(id);
    CHECK(c.find_accelerator(id) != nullptr);
  }
  for (const char* id : {"dgx-a100", "dgx-h100", "dgx-h200"}) CHECK(c.find_node(id) != nullptr);
  for (const char* id : {"gpt3-175b", "gopher-280b", "chinchilla-70b", "mt-nlg-530b", "megatron-1t", "bloom-176b",
                         "palm-540b", "llama2-70b", "st-moe-32b"}) {
    INFO(id);
    CHECK(c.find_model(id) != nullptr);
  }
  CHECK(c.grids.size() >= 15);
  for (const auto& a : c.accelerators) CHECK(!a.source.empty());
  for (const auto& g : c.grids) CHECK(!g.source.empty());
}

TEST_CASE("published hardware and grid figures are as the sources state") {
  const Catalog c = load_catalog();
  const Node& dgx = c.node("dgx-a100");
  EXPECT_CLOSE(dgx.max_power_w, 6500, 1e-12);
  CHECK(dgx.gpus_per_node == 8);
  EXPECT_CLOSE(c.node("dgx-h100").max_power_w, 10200, 1e-12);
  EXPECT_CLOSE(c.accelerator("a100-sxm4-80gb").peak_16bit_flops, 312e12, 1e-12);
  EXPECT_CLOSE(c.grid("world").intensity_kg_per_kwh, 0.475, 1e-12);
  EXPECT_CLOSE(c.grid("us").intensity_kg_per_kwh, 0.429, 1e-12);
  EXPECT_CLOSE(c.pue_preset("industry-average").pue, 1.58, 1e-12);
  CHECK(c.cluster("selene").nodes == 560);
}

TEST_CASE("look-ups of unknown ids suggest the closest one") {
  const Catalog c = load_catalog();
  try {
    c.accelerator("a100-sxm4-80g");
    FAIL("no throw");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("did you mean 'a100-sxm4-80gb'") != std::string::npos);
  }
  CHECK_THROWS_AS(c.grid("atlantis"), InputError);
}

TEST_CASE("an overlay directory adds entries and overrides constants") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "isoflop-catalog-overlay-test";
  fs::create_directories(dir);
  std::ofstream(dir / "mine.yaml") << "grids:\n"
                                      "  - {name: us, kind: country, intensity: 400 g/kWh, year: 2024, source: mine}\n"
                                      "accelerators:\n"
                                      "  - {name: my-chip, peak_16bit_tflops: 100, peak_fp32_tflops: 10, memory_gb: 64,\n"
                                      "     memory_bandwidth_gb_per_s: 1000, tdp: 300 W, source: my datasheet}\n";
  const Catalog c = load_catalog(dir.string());
  EXPECT_CLOSE(c.grid("us").intensity_kg_per_kwh, 0.400, 1e-12);
  CHECK(c.accelerator("my-chip").memory_bytes == 64e9);
  CHECK(c.find_accelerator("a100-sxm4-80gb") != nullptr);
  // A second overlay file defining the same grid: neither silently wins.
  std::ofstream(dir / "theirs.yaml")
      << "grids:\n  - {name: us, kind: country, intensity: 300 g/kWh, year: 2024, source: theirs}\n";
  try {
    load_catalog(dir.string());
    FAIL("a grid defined in two overlay files was accepted");
  } catch (const CatalogError& e) {
    const std::string message = e.what();
    CHECK(message.find("theirs.yaml:2: grid 'us' is also defined at ") != std::string::npos);
    CHECK(message.find("mine.yaml:2; define it in one file") != std::string::npos);
  }
  fs::remove_all(dir);
  CHECK_THROWS_AS(load_catalog(std::string("/nonexistent/isoflop")), InputError);
}

TEST_CASE("malformed catalogs are rejected with file:line, the field and the rule") {
  CHECK(error_of("grids: [ {name: x\n").find("user.yaml:") == 0);  // YAML syntax
  CHECK(error_of("grids:\n  - {name: x, kind: country, year: 2020, source: s}\n") ==
        "user.yaml:2: grid 'x' field 'intensity': is missing (required)");
  CHECK(error_of("grids:\n  - {name: x, kind: country, intensity: 5 furlongs, year: 2020, source: s}\n")
            .find("'5 furlongs' is not a carbon intensity") != std::string::npos);
  CHECK(error_of("pue:\n  - {name: p, pue: 0.9, source: s}\n").find("must be at least 1") != std::string::npos);
  // A parametric law's interaction exponent must be positive; a data-constrained law has none.
  const std::string law = "laws:\n  - {name: l, kind: parametric, E: 1.7, A: 400, B: 400, alpha: 0.3, beta: 0.3, ";
  CHECK(error_of(law + "gamma: 0, source: s}\n").find("field 'gamma': must be positive") != std::string::npos);
  CHECK(error_of(law + "gamma: 0.5, source: s}\n").empty());
  // The model sizes a law was fitted to: a [smallest, largest] pair of counts, in order, with its source.
  CHECK(error_of(law + "fitted_params: {range: [7e7, 1.6e10], source: s}, source: s}\n").empty());
  CHECK(error_of(law + "fitted_params: {range: [1.6e10, 7e7], source: s}, source: s}\n")
            .find("field 'range': must be [smallest, largest] with 1 <= the first <= the second") != std::string::npos);
  CHECK(error_of(law + "fitted_params: {range: [7e7], source: s}, source: s}\n")
            .find("field 'range': must be [smallest, largest]") != std::string::npos);
  CHECK(error_of(law + "fitted_params: {range: [a, b], source: s}, source: s}\n")
            .find("must be two numbers [smallest, largest]") != std::string::npos);
  CHECK(error_of(law + "fitted_params: {range: [7e7, 1.6e10]}, source: s}\n").find("field 'source'") !=
        std::string::npos);
  CHECK(error_of("laws:\n  - {name: l, kind: data-constrained, E: 1.7, A: 400, B: 400, alpha: 0.3, beta: 0.3, "
                 "r_d_star: 15, r_n_star: 5, gamma: 0.5, source: s}\n")
            .find("unknown field 'gamma'") != std::string::npos);
  CHECK(error_of("nodes:\n  - {name: n, accelerator: a, gpus_per_node: -8, max_power: 1 kW,\n"
                 "     intra_node_bandwidth_gb_per_s: 1, inter_node_bandwidth_gb_per_s: 1, source: s}\n")
            .find("field 'gpus_per_node': must be positive") != std::string::npos);
  CHECK(error_of("nodes:\n  - {name: n, accelerator: a, gpus_per_node: eight, max_power: 1 kW,\n"
                 "     intra_node_bandwidth_gb_per_s: 1, inter_node_bandwidth_gb_per_s: 1, source: s}\n")
            .find("'eight' is not a number") != std::string::npos);
  CHECK(error_of("pue:\n  - {name: p, pue: 1.1, source: s}\n  - {name: p, pue: 1.2, source: s}\n")
            .find("user.yaml:3: duplicate pue preset name 'p'") == 0);
  CHECK(error_of("pue:\n  - {name: p, pue: 1.1, source: s, colour: red}\n").find("unknown field 'colour'") !=
        std::string::npos);
  CHECK(error_of("gridz: []\n").find("unknown section 'gridz' (did you mean 'grids'?)") != std::string::npos);
  CHECK(error_of("models:\n  - {name: m, layers: 2, d_model: 100, heads: 3, vocab: 10, source: s}\n")
            .find("not divisible by heads") != std::string::npos);
  CHECK(error_of("models:\n  - {name: m, layers: 2, d_model: 64, heads: 4, vocab: 10, activation: geglu, source: s}\n")
            .find("'geglu' is not one of gelu|swiglu|relu|squared-relu") != std::string::npos);
  CHECK(error_of("models:\n  - {name: m, layers: 2, d_model: 64, heads: 4, kv_heads: 3, vocab: 10, source: s}\n")
            .find("heads 4 must be a multiple of kv_heads") != std::string::npos);
  const std::string family =
      "shape_families:\n  - {name: f, rule: aspect, block: llama2-70b, smoothing_ln: 0.5, source: s,\n"
      "     rows: [{params: 7B, d_model: 4096, layers: 32, heads: 32, head_size: 128, ";
  CHECK(error_of(family + "kv_heads: 8}]}\n").empty());
  CHECK(error_of(family + "kv_heads: 6}]}\n").find("32 heads are not divisible by 6 key/value heads") !=
        std::string::npos);
  CHECK(error_of(family + "kv_heads: 64}]}\n").find("field 'kv_heads'") != std::string::npos);
  // A row's ffn width: a few d_model (Llama 2 7B's 11008 passes), not a typo's 1 or 9e18.
  CHECK(error_of(family + "ffn: 11008}]}\n").empty());
  for (const char* typo : {"ffn: 1}]}\n", "ffn: 9000000000000000000}]}\n"})
    CHECK(error_of(family + typo).find("is not within d_model/4 to 16 d_model (d_model 4096)") != std::string::npos);
}

TEST_CASE("a user's model entry with a modern block parses every field") {
  Catalog c = load_catalog();
  merge_catalog_text("models:\n  - {name: mine, layers: 4, d_model: 256, heads: 8, kv_heads: 2, ffn: 768, activation: "
                     "squared-relu,\n     vocab: 1000, seq: 512, positional: rotary, norm: rmsnorm, tied_embeddings: false,"
                     " bias: false, source: s}\n",
                     "user.yaml", &c);
  const auto& a = c.model("mine").architecture;
  CHECK(a.activation == model::Activation::kSquaredRelu);
  CHECK(a.effective_kv_heads() == 2);
  CHECK(a.positional == model::PositionalEncoding::kRotary);
  CHECK(a.norm == model::NormKind::kRmsNorm);
  CHECK(!a.tied_embeddings);
  CHECK(!a.bias);
}

TEST_CASE("the Patterson et al. 2021 Table 4 datacenter grids and PUE presets are present") {
  const Catalog c = load_catalog();
  EXPECT_CLOSE(c.grid("google-georgia-2018").intensity_kg_per_kwh, 0.431, 1e-12);
  EXPECT_CLOSE(c.grid("google-taiwan-2019").intensity_kg_per_kwh, 0.545, 1e-12);
  EXPECT_CLOSE(c.grid("google-georgia-2019").intensity_kg_per_kwh, 0.415, 1e-12);
  EXPECT_CLOSE(c.grid("google-north-carolina-2020").intensity_kg_per_kwh, 0.201, 1e-12);
  EXPECT_CLOSE(c.grid("google-north-carolina-2020-net").intensity_kg_per_kwh, 0.177, 1e-12);
  EXPECT_CLOSE(c.grid("google-georgia-2020").intensity_kg_per_kwh, 0.403, 1e-12);
  EXPECT_CLOSE(c.grid("google-georgia-2020-net").intensity_kg_per_kwh, 0.330, 1e-12);
  for (const char* id : {"hyperscaler", "google"}) EXPECT_CLOSE(c.pue_preset(id).pue, 1.10, 1e-12);
  EXPECT_CLOSE(c.pue_preset("on-premise").pue, 1.6, 1e-12);
  EXPECT_CLOSE(c.pue_preset("us-average-2020").pue, 1.59, 1e-12);
  // Measured average system power per accelerator (Patterson Tables 3 and 4), not the TDP.
  EXPECT_CLOSE(*c.accelerator("v100-sxm2-32gb").measured_power_w, 330, 1e-12);
  EXPECT_CLOSE(*c.accelerator("tpu-v3").measured_power_w, 283, 1e-12);
  EXPECT_CLOSE(*c.accelerator("tpu-v2").measured_power_w, 221, 1e-12);
}

TEST_CASE("an accelerator may omit the fp32 peak (unpublished for TPUs), not the 16-bit peak") {
  Catalog c;
  merge_catalog_text("accelerators:\n  - {name: t, peak_16bit_tflops: 46, memory_gb: 16,\n"
                     "     memory_bandwidth_gb_per_s: 700, tdp: 280 W, source: s}\n",
                     "user.yaml", &c);
  CHECK(c.accelerator("t").peak_fp32_flops == 0);
  CHECK(error_of("accelerators:\n  - {name: t, memory_gb: 16,\n"
                 "     memory_bandwidth_gb_per_s: 700, tdp: 280 W, source: s}\n") ==
        "user.yaml:2: accelerator 't' field 'peak_16bit_tflops': is missing (required)");
}

TEST_CASE("a YAML input holds one document, and the count stops at the second on text yaml-cpp never ends") {
  using isoflop::catalog::load_one_document;
  CHECK(load_one_document("a: 1\n")["a"].as<int>() == 1);
  CHECK(load_one_document("").IsNull());
  CHECK(load_one_document("---\na: 1\n...\n")["a"].as<int>() == 1);
  try {
    load_one_document("a: 1\n---\nb: 2\n");
    FAIL("a second document was accepted");
  } catch (const YAML::ParserException& e) {
    CHECK(e.mark.line == 1);  // the '---' line, 0-based
    CHECK(e.msg == "a second document ('---') in the file; accepted: one document");
  }
  // yaml-cpp's parser reports endless empty documents on this text (YAML::LoadAll never returns); here it is
  // refused as a second document at once.
  CHECK_THROWS_AS(load_one_document(",\x18\""), YAML::ParserException);
}
