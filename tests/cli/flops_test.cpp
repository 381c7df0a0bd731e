// End-to-end tests of `isoflop flops`: conventions, the document's fields, MoE, recompute, --from and --arch
// documents, bad input.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "cli/cli_json.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

using namespace isoflop::test;

TEST_CASE("flops by convention") {
  auto doc = run_json("flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron -o json");
  CHECK(doc["schema"] == "isoflop/flops/v2");
  CHECK(doc["inputs"]["arch"] == "mt-nlg-530b");
  CHECK(doc["inputs"]["global_batch"] == 1920);
  CHECK(doc["inputs"]["recompute"].is_null());  // left to the convention
  CHECK(doc["architecture"]["layers"] == 105);
  CHECK(doc["architecture"]["d_model"] == 20480);
  const auto& f = doc["flops"];
  CHECK(f["convention"] == "megatron");
  CHECK(f["recompute"] == "full");
  CHECK(f["tokens"].get<double>() == 1920.0 * 2048);
  CHECK(f["sequences"].get<double>() == 1920.0);
  // Narayanan et al. 2021 eq. 3 and Korthikanti et al. 2022 eq. 7 for MT-NLG, B = 1920.
  CHECK(std::fabs(f["hardware_flops"].get<double>() / 1.6926e19 - 1) < 1e-3);
  CHECK(std::fabs(f["model_flops"].get<double>() / 1.2701e19 - 1) < 1e-3);
  double parts = 0;
  for (const auto& [name, v] : f["parts"].items()) parts += v.get<double>();
  CHECK(std::fabs(parts / f["hardware_flops"].get<double>() - 1) < 1e-12);

  doc = run_json("flops --params 70B --tokens 1.4T -o json");
  CHECK(std::fabs(doc["flops"]["hardware_flops"].get<double>() / 5.88e23 - 1) < 1e-12);
  CHECK(doc["flops"]["params_kind"] == "given");
  CHECK(doc["architecture"].is_null());
  CHECK(doc["params"].is_null());
  doc = run_json("flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla -o json");
  CHECK(doc["flops"]["parts"]["dense"].get<double>() > 0);
  CHECK(doc["flops"]["hardware_flops"].get<double>() > 5.5e23);
  CHECK(doc["params"]["total"] == doc["architecture"]["params"]);
}

TEST_CASE("flops: the chinchilla page gives the ratio to 6ND with and without embeddings and logits") {
  // Table A9's 73M shape (arch --params 73M): 1.58 x 6ND counting the embeddings and logits of a 32k vocabulary,
  // 1.025 without them, which is Hoffmann et al. 2022 Table A4's 1.03.
  const auto dir = isoflop::test::fresh_temp_dir("isoflop-flops-test", "a4");
  const auto shaped = run_cli("arch --params 73M -o yaml");
  REQUIRE(shaped.status == 0);
  const std::string path = (dir / "a73.yaml").string();
  std::ofstream(path) << shaped.out;
  const auto r = run_cli("flops --arch " + path + " --tokens 1B --flops-convention chinchilla");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("FLOPs / 6·N·D    1.58; without embeddings and logits 1.025 (as Hoffmann et al. 2022 Table A4 "
                   "counts)") != std::string::npos);
}

TEST_CASE("flops of an MoE model follow its active parameters") {
  const auto doc = run_json("flops --arch st-moe-32b --tokens 1T -o json");
  const double active = doc["params"]["active"].get<double>();
  CHECK(active < doc["params"]["total"].get<double>());
  CHECK(doc["flops"]["params_kind"] == "active");
  CHECK(doc["flops"]["params"].get<double>() == active);
  CHECK(std::fabs(doc["flops"]["flops_per_token"].get<double>() / (6 * active) - 1) < 1e-12);
}

TEST_CASE("flops: ST-MoE-32B costs about a 32B dense model per token in the chinchilla and megatron conventions") {
  for (const char* convention : {"chinchilla", "megatron --recompute none"}) {
    INFO(convention);
    const auto doc = run_json(std::string("flops --arch st-moe-32b --tokens 1T -o json --flops-convention ") + convention);
    const auto& parts = doc["flops"]["parts"];
    CHECK(std::fabs(doc["flops"]["flops_per_token"].get<double>() / (6 * 32e9) - 1) < 0.1);
    CHECK(parts.contains("experts"));
    // Router: 3 × 2 · d_model · experts per token in each of the 12 MoE layers.
    CHECK(std::fabs(parts["router"].get<double>() / (1e12 * 12 * 3 * 2 * 5120 * 64) - 1) < 1e-12);
    CHECK(doc["params"]["total"].get<double>() > 250e9);
  }
}

TEST_CASE("flops --recompute: hardware FLOPs grow none < selective < full, model FLOPs do not") {
  double previous = 0, model = 0;
  for (const char* mode : {"none", "selective", "full"}) {
    INFO(mode);
    const auto doc = run_json(std::string("flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla -o json --recompute ") + mode);
    const auto& f = doc["flops"];
    CHECK(f["recompute"] == mode);
    CHECK(doc["inputs"]["recompute"] == mode);
    CHECK(f["hardware_flops"].get<double>() > previous);
    CHECK(std::fabs(f["hardware_flops"].get<double>() - f["model_flops"].get<double>() - f["parts"]["recompute"].get<double>()) <=
          1e-9 * f["hardware_flops"].get<double>());
    if (model > 0) CHECK(f["model_flops"].get<double>() == model);
    model = f["model_flops"].get<double>();
    previous = f["hardware_flops"].get<double>();
  }
  // 6nd with full recompute is Narayanan eq. 4's 8·N·D.
  const auto e = run_json("flops --params 175B --tokens 300B --recompute full -o json");
  CHECK(std::fabs(e["flops"]["hardware_flops"].get<double>() / (8 * 175e9 * 300e9) - 1) < 1e-12);
  // megatron with selective recompute lies between eq. 7 (none) and eq. 3 (full).
  const auto m = run_json("flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron --recompute selective -o json");
  CHECK(m["flops"]["hardware_flops"].get<double>() > 1.2701e19);
  CHECK(m["flops"]["hardware_flops"].get<double>() < 1.6926e19);
}

TEST_CASE("flops --arch and --from read arch documents as JSON and as YAML") {
  const auto dir = isoflop::test::fresh_temp_dir("flops", "from");
  const auto arch = run_cli("arch --params 70B --tp 8 -o json");
  REQUIRE(arch.status == 0);
  std::ofstream(dir / "a.json") << arch.out;
  const auto yaml = run_cli("arch --params 70B --tp 8 -o yaml");
  REQUIRE(yaml.status == 0);
  std::ofstream(dir / "a.yaml") << yaml.out;
  const auto expected = nlohmann::json::parse(arch.out)["architecture"];
  for (const std::string& args : {"--arch " + (dir / "a.json").string(), "--arch " + (dir / "a.yaml").string(),
                                 "--from " + (dir / "a.json").string(), "--from " + (dir / "a.yaml").string()}) {
    INFO(args);
    const auto doc = run_json("flops " + args + " --tokens 1.4T -o json");
    CHECK(doc["architecture"]["layers"] == 80);
    CHECK(doc["architecture"]["d_model"] == 8192);
    CHECK(doc["architecture"]["params"] == expected["params"]);
    CHECK(std::fabs(doc["flops"]["hardware_flops"].get<double>() / (6 * 70.06e9 * 1.4e12) - 1) < 1e-3);
  }
  // --from a document without tokens needs --tokens.
  check_refused("flops --from " + (dir / "a.json").string(), "--tokens");
}

TEST_CASE("flops bad input exits 2") {
  check_bad_input("flops ", {"", "--arch mt-nlg-530b", "--params 70B --arch gpt3-175b --tokens 1T",
                              "--params -1 --tokens 1T", "--params 70B --tokens 1T --flops-convention chinchilla",
                              "--params 70B --tokens 1T --flops-convention 7nd", "--arch gpt4 --tokens 1T",
                              "--params 70B --tokens 1T --global-batch 8", "--params 70B --tokens 1T --recompute selective",
                              "--arch chinchilla-70b --tokens 1T --recompute partial"});
  CHECK(run_cli("flops --params 70B --tokens 1T --recompute selective").err ==
        "isoflop: error: --recompute: selective needs the attention shape; use the chinchilla or megatron convention\n");
  CHECK(run_cli("flops --params 70B --tokens 1T --flops-convention chinchilla").err ==
        "isoflop: error: --flops-convention: chinchilla needs an architecture (a bare parameter count allows only 6nd)\n");
  // --non-embedding chooses N for 6·N·D: it was ignored without an architecture and under the other conventions.
  CHECK(run_cli("flops --params 70B --tokens 1T --non-embedding").err ==
        "isoflop: error: --non-embedding: needs an architecture (a bare parameter count has no embeddings to drop)\n");
  CHECK(run_cli("flops --arch llama2-7b --tokens 1T --flops-convention chinchilla --non-embedding").err ==
        "isoflop: error: --non-embedding: applies to 6nd only (the chinchilla convention counts the architecture's own "
        "matrices)\n");
}

TEST_CASE("flops --from a plan counts the plan's model on the tokens its run trains, as its cost does") {
  const auto dir = isoflop::test::fresh_temp_dir("flops", "plan");
  const auto plan = run_cli("plan --gpus 3360 --gpu a100-sxm4-80gb --days 30 -o json");
  REQUIRE(plan.status == 0);
  std::ofstream(dir / "p.json") << plan.out;
  const auto p = nlohmann::json::parse(plan.out);
  const auto doc = run_json("flops --from " + (dir / "p.json").string() + " -o json");
  CHECK(doc["architecture"] == p["architecture"]);
  // The tokens the run trains (what the plan's time and cost count), not the law's for its own N.
  const double run_tokens = p["budget"]["tokens"].get<double>();
  CHECK(run_tokens != p["allocation"]["tokens"].get<double>());
  CHECK(doc["flops"]["tokens"].get<double>() == run_tokens);
  const double n = p["architecture"]["params"].get<double>();
  CHECK(std::fabs(doc["flops"]["hardware_flops"].get<double>() / (6 * n * run_tokens) - 1) < 1e-12);
  // In the plan's own convention (Korthikanti eq. 7 model FLOPs), the same run counts the plan's FLOPs.
  const auto model_flops =
      run_json("flops --from " + (dir / "p.json").string() + " --flops-convention megatron --recompute none -o json");
  CHECK(std::fabs(model_flops["flops"]["model_flops"].get<double>() / p["budget"]["flops"].get<double>() - 1) < 1e-9);
  // --tokens overrides the plan's.
  const auto own = run_json("flops --from " + (dir / "p.json").string() + " --tokens 1T -o json");
  CHECK(own["flops"]["tokens"].get<double>() == 1e12);
  // A flops document carries its run's tokens too.
  std::ofstream(dir / "f.json") << run_cli("flops --arch chinchilla-70b --tokens 1.4T -o json").out;
  const auto again = run_json("flops --from " + (dir / "f.json").string() + " -o json");
  CHECK(again["flops"]["tokens"].get<double>() == 1.4e12);
  CHECK(again["architecture"]["name"] == "chinchilla-70b");
}
