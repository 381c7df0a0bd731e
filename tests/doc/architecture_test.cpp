// Tests for the architecture serializer (lib/doc/architecture_json) and --arch resolution
// (lib/doc/architecture_input): every catalog model round-trips, derived keys are recomputed, and an arch
// document as JSON or YAML, a bare architecture object and a models.yaml-style file all resolve.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/architecture_input.hpp"
#include "doc/architecture_json.hpp"
#include "doc/registry.hpp"
#include "model/params.hpp"
#include "report/output.hpp"
#include "support/input_error.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

namespace isoflop {
namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& dir, const std::string& name, const std::string& text) {
  std::ofstream(dir / name) << text;
  return dir / name;
}

std::string error_of(const catalog::Catalog& cat, const std::string& path) {
  return test::input_error_message([&] { (void)doc::resolve_architecture(cat, path); });
}

}  // namespace

TEST_CASE("every catalog architecture round-trips through JSON, byte for byte, with its derived values") {
  const catalog::Catalog cat = catalog::load_catalog();
  REQUIRE(cat.models.size() > 5);
  for (const auto& m : cat.models) {
    INFO(m.name);
    const doc::Json j = m.architecture;
    const auto back = j.get<model::Architecture>();
    CHECK(back == m.architecture);
    CHECK(doc::Json(back).dump() == j.dump());
    CHECK(j["params"].get<long long>() == static_cast<long long>(model::count_params(m.architecture).total()));
    CHECK(j["padded_vocab"].get<long long>() == model::padded_vocab(m.architecture));
    CHECK(j["moe"].is_null() == !m.architecture.moe.enabled());
  }
  const doc::Json c = cat.model("chinchilla-70b").architecture;
  CHECK(c["layers"] == 80);
  CHECK(c["d_model"] == 8192);
  CHECK(c["effective_head_size"] == 128);
  CHECK(c["effective_ffn"] == 32768);
  CHECK(c["aspect_ratio"].get<double>() == doctest::Approx(102.4));
  const doc::Json st = cat.model("st-moe-32b").architecture;
  CHECK(st["moe"]["experts"] == 64);
  CHECK(st["moe_layers"].get<int>() * 4 == st["layers"].get<int>());
  CHECK(st["active_params"].get<long long>() < st["params"].get<long long>() / 5);
}

TEST_CASE("from_json ignores the derived keys, absent or stale, and names the JSON path of a bad member") {
  const catalog::Catalog cat = catalog::load_catalog();
  doc::Json j = cat.model("gpt3-175b").architecture;
  j["params"] = 1;            // stale: recomputed on write
  j.erase("padded_vocab");    // absent: fine
  CHECK(j.get<model::Architecture>() == cat.model("gpt3-175b").architecture);
  doc::Json bad = {{"architecture", j}};
  bad["architecture"]["heads"] = "many";
  const doc::SourceDocument d{"a.json", "arch", bad};
  try {
    (void)doc::decode<model::Architecture>(d, d.json.at("architecture"));
    FAIL("a string for heads must be refused");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "a.json: architecture.heads: must be an integer");
  }
  // A whole number written as a float is the integer JSON Schema's "integer" accepts; a fraction is not.
  doc::Json whole = {{"architecture", j}};
  whole["architecture"]["layers"] = 96.0;
  const doc::SourceDocument w{"w.json", "arch", whole};
  CHECK(doc::decode<model::Architecture>(w, w.json.at("architecture")).layers == 96);
  whole["architecture"]["layers"] = 96.5;
  const doc::SourceDocument f{"f.json", "arch", whole};
  CHECK_THROWS_WITH_AS(doc::decode<model::Architecture>(f, f.json.at("architecture")),
                       "f.json: architecture.layers: must be an integer", InputError);
  whole["architecture"]["layers"] = -1.0;
  const doc::SourceDocument n{"n.json", "arch", whole};
  CHECK_THROWS_AS(doc::decode<model::Architecture>(n, n.json.at("architecture")), InputError);
}

TEST_CASE("an architecture's sizes and expert counts are bounded on read, so no count derived from them overflows") {
  const catalog::Catalog cat = catalog::load_catalog();
  const doc::Json dense = cat.model("gpt3-175b").architecture;
  const doc::Json sparse = cat.model("st-moe-32b").architecture;
  REQUIRE(!sparse.at("moe").is_null());
  auto message = [](const doc::Json& architecture) {
    const doc::SourceDocument d{"a.json", "arch", {{"architecture", architecture}}};
    return test::input_error_message([&] { (void)doc::decode<model::Architecture>(d, d.json.at("architecture")); });
  };
  auto with = [](doc::Json j, const doc::Json::json_pointer& at, const doc::Json& value) {
    j[at] = value;
    return j;
  };
  using P = doc::Json::json_pointer;
  // 4·d_model stays within a 64-bit integer; vocab and seq have the limits every command applies.
  CHECK(message(with(dense, P("/d_model"), 4'000'000'000'000'000'000LL)) ==
        "a.json: architecture.d_model: must be at most 1000000000000");
  CHECK(message(with(dense, P("/vocab"), 9'223'372'036'854'775'807LL)) ==
        "a.json: architecture.vocab: must be at most 16777216");
  CHECK(message(with(sparse, P("/moe/expert_ffn"), -1)) ==
        "a.json: architecture.moe.expert_ffn: must be in [0, 1000000000000] (0: the dense ffn size)");
  CHECK(message(with(sparse, P("/moe/top_k"), -2147483647 - 1)) ==
        "a.json: architecture.moe.top_k: must be at least 1");
  CHECK(message(with(sparse, P("/moe/shared_experts"), -1)) ==
        "a.json: architecture.moe.shared_experts: must not be negative");
  // A count past an int's range says what the field holds.
  CHECK(message(with(dense, P("/heads"), 2147483648LL)) ==
        "a.json: architecture.heads: 2147483648 is out of range; accepted: at most 2147483647");
  // Parameter counts are written as 64-bit integers: a model past 1e18 parameters is refused, not written wrapped.
  CHECK(message(with(dense, P("/layers"), 1'000'000'000)) ==
        "a.json: architecture: 1.8121e18 parameters are more than the 1e18 an architecture may have");
  // Counts as large as an int holds are counted in double: 65536 layers × 65536 experts, 2^31 − 1 shared
  // experts. The routed experts scale exactly with layers × experts from a small model of the same widths.
  auto counted = [&](int layers, int experts, int shared) {
    model::Architecture a =
        with(with(sparse, P("/layers"), layers), P("/moe/experts"), experts).get<model::Architecture>();
    a.moe.every = 1;
    a.moe.shared_experts = shared;
    return model::count_params(a);
  };
  const model::ParamCount small = counted(4, 4, 0), vast = counted(65536, 65536, 2147483647);
  CHECK(vast.routed_experts / small.routed_experts == doctest::Approx(65536.0 * 65536.0 / 16.0).epsilon(1e-12));
  CHECK(vast.experts > vast.routed_experts * 2147483647.0 / 65536.0);  // the shared experts are all counted
  CHECK(vast.active > vast.routed_experts);                            // each token passes every shared one
}

TEST_CASE("resolve_architecture: catalog ids, documents as JSON and YAML, bare objects and models.yaml files") {
  const catalog::Catalog cat = catalog::load_catalog();
  const fs::path dir = test::fresh_temp_dir("architecture", "resolve");
  const model::Architecture chinchilla = cat.model("chinchilla-70b").architecture;
  CHECK(doc::resolve_architecture(cat, "chinchilla-70b") == chinchilla);

  doc::Json document = {{"schema", doc::schema_id("arch")}, {"architecture", chinchilla}};
  model::Architecture named = chinchilla;
  const auto json_file = write(dir, "a.json", report::to_json_text(document));
  CHECK(doc::resolve_architecture(cat, json_file.string()) == named);
  const auto yaml_file = write(dir, "a.yaml", report::to_yaml_text(document));
  CHECK(doc::resolve_architecture(cat, yaml_file.string()) == named);
  document["schema"] = doc::schema_id("plan");  // a plan's architecture is taken as it is
  CHECK(doc::resolve_architecture(cat, write(dir, "p.json", document.dump()).string()) == named);

  // The serializer's object alone (jq .architecture), without a name: named after the file.
  doc::Json bare = chinchilla;
  bare["name"] = "";
  named.name = "bare";
  CHECK(doc::resolve_architecture(cat, write(dir, "bare.json", bare.dump()).string()) == named);

  const auto yaml = write(dir, "mine.yaml", "layers: 4\nd_model: 256\nheads: 4\nvocab: 1000\n");
  const model::Architecture mine = doc::resolve_architecture(cat, yaml.string());
  CHECK(mine.name == "mine");
  CHECK(mine.layers == 4);
  CHECK(mine.seq == 2048);

  document["schema"] = doc::schema_id("cost");
  CHECK(error_of(cat, write(dir, "c.json", document.dump()).string()).find("expected isoflop/arch/v2") !=
        std::string::npos);
  document["schema"] = "isoflop/arch/v1";
  CHECK(error_of(cat, write(dir, "v1.json", document.dump()).string()).find("is version 1") != std::string::npos);
  document["schema"] = doc::schema_id("arch");
  document["architecture"].erase("layers");
  CHECK(error_of(cat, write(dir, "m.json", document.dump()).string()) ==
        (dir / "m.json").string() + ": architecture.layers: missing");
  try {
    (void)doc::resolve_architecture(cat, "chinchila-70b");
    FAIL("an unknown id must be refused");
  } catch (const FieldError& e) {
    CHECK(e.field() == "arch");
    CHECK(e.message().find("did you mean 'chinchilla-70b'") != std::string::npos);
  }
}

TEST_CASE("arch and flops documents decode and encode to the same bytes, dense and sparse") {
  for (const char* args : {"arch --params 70B --tp 8 -o json", "arch --params 7B --style megatron --top 5 -o json",
                           "arch --params 1.5B --style kaplan --seq 1024 --vocab 50257 --top 0 -o json",
                           "arch --active-params 32B --moe --experts 64 --top-k 1 --ep 16 -o json",
                           "flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron -o json",
                           "flops --arch st-moe-32b --tokens 1T --flops-convention chinchilla --recompute selective -o json",
                           "flops --params 70B --tokens 1.4T --recompute full -o json"}) {
    INFO(args);
    const test::CliResult r = test::run_cli(args);
    REQUIRE(r.status == 0);
    const doc::SourceDocument d = doc::parse_document("out.json", r.out);
    CHECK(report::to_json_text(doc::reencode(d)) == r.out);
  }
}

}  // namespace isoflop

TEST_CASE("a YAML document whose key is a list or a mapping is bad input naming the file and line") {
  const std::string texts[] = {"schema: isoflop/optimal/v2\n? [a, b]\n: 1\n", "schema: isoflop/optimal/v2\n? {a: 1}\n: 2\n"};
  for (const std::string& text : texts) {
    INFO(text);
    try {
      (void)isoflop::doc::parse_document("x.yaml", text);
      FAIL("accepted a non-scalar key");
    } catch (const isoflop::InputError& e) {
      CHECK(std::string(e.what()) == "x.yaml: line 2: a key must be a plain name, not a list or a mapping");
    }
  }
}
