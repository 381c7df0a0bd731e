// End-to-end tests of `isoflop arch`: the shapes it proposes, its JSON/CSV/YAML fields, MoE and ST-MoE's warnings,
// and bad input (exit 2, one line).
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "cli/cli_json.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

using namespace isoflop::test;

namespace {

// The one-line error of a run that must fail with exit status 2.
std::string error_of(const std::string& args) {
  const auto r = run_cli(args);
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err.find('\n') == r.err.size() - 1);  // exactly one line
  return r.err;
}

}  // namespace

TEST_CASE("arch 70B, Chinchilla style: 80 x 8192 with its exact count and ratio in JSON") {
  const auto r = run_cli("arch --params 70B --tp 8 -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(r.out.rfind("{\n  \"schema\": \"isoflop/arch/v2\"", 0) == 0);  // the schema comes first
  CHECK(doc["schema"] == "isoflop/arch/v2");
  CHECK(doc["inputs"]["params"].get<double>() == 70e9);
  CHECK(doc["inputs"]["style"] == "chinchilla");
  CHECK(doc["inputs"]["tp"] == 8);
  CHECK(doc["family"]["name"] == "chinchilla");
  CHECK(doc["family"]["source"].get<std::string>().find("Hoffmann et al. 2022") != std::string::npos);
  const auto& a = doc["architecture"];
  CHECK(a["layers"] == 80);
  CHECK(a["d_model"] == 8192);
  CHECK(a["heads"] == 64);
  CHECK(a["head_size"] == 128);
  CHECK(a["effective_head_size"] == 128);
  CHECK(a["kv_heads"] == 0);  // = heads
  CHECK(a["effective_kv_heads"] == 64);
  CHECK(a["ffn"] == 32768);
  CHECK(a["vocab"] == 32000);
  CHECK(a["seq"] == 2048);
  CHECK(a["moe"].is_null());
  CHECK(a["aspect_ratio"].get<double>() == doctest::Approx(102.4));
  // Exact: 80 x (12 h² + 2 h² for the relative-position keys) + V h + norms (rmsnorm, 2 x 80 + 1 scales of h).
  const long long params = a["params"].get<long long>();
  CHECK(params == 80LL * 13 * 8192 * 8192 + 32000LL * 8192 + 161LL * 8192 + 80LL * 4 * 8192 + 80LL * (32768 + 8192));
  CHECK(doc["target_params"].get<double>() == 70e9);
  CHECK(doc["ratio"].get<double>() == doctest::Approx(params / 70e9).epsilon(1e-12));
  CHECK(doc["params"]["total"].get<long long>() == params);
  CHECK(a["active_params"].get<long long>() == params);
  // Hoffmann et al. 2022 App. F per token, backward = 2 x forward: 3 x [80 x (24 h² + 4 s h + 3 H s) + 4 V h]
  // with h 8192, s 2048, H 64, V 32000 (embeddings and final logits included).
  CHECK(doc["flops_per_token"].get<double>() == doctest::Approx(405893283840.0).epsilon(1e-12));
  CHECK(doc["dense_equivalent_params"].get<double>() == doctest::Approx(405893283840.0 / 6).epsilon(1e-12));
  REQUIRE(doc["alternatives"].size() == 3);
  for (const auto& alt : doc["alternatives"]) {
    CHECK(std::fabs(alt["ratio"].get<double>() - 1) <= 0.02);
    CHECK(alt["architecture"]["d_model"].get<long long>() % 1024 == 0);  // lcm(128, 128 x TP 8)
    CHECK(alt["architecture"]["heads"].get<int>() % 8 == 0);
  }
  CHECK(doc["alternatives"][0]["rank"] == 2);
  CHECK(doc["d_model_multiple"] == 1024);
  CHECK(doc["moe_advice"].is_null());
}

TEST_CASE("arch table: prints the shape, the exact count, the ratio and the alternatives") {
  const auto r = run_cli("arch --params 70B");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("80 x 8192") != std::string::npos);
  CHECK(r.out.find("64 x 128") != std::string::npos);
  CHECK(r.out.find("% of target") != std::string::npos);
  CHECK(r.out.find("Alternatives") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("arch --style megatron and kaplan, --top, csv and yaml") {
  auto r = run_cli("arch --params 175B --style megatron --tp 8 --vocab 50257 -o json");
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["architecture"]["d_model"] == 12288);
  CHECK(doc["architecture"]["layers"] == 96);
  CHECK(doc["architecture"]["padded_vocab"] == 51200);
  CHECK(doc["preferred"]["d_model"] == 12288);
  r = run_cli("arch --params 1.5B --style kaplan -o json --top 0");
  REQUIRE(r.status == 0);
  doc = nlohmann::json::parse(r.out);
  CHECK(doc["alternatives"].empty());
  CHECK(doc["preferred"]["aspect_ratio"].get<double>() == doctest::Approx(1600.0 / 48));
  const double aspect = doc["architecture"]["aspect_ratio"].get<double>();
  CHECK(std::fabs(std::log(aspect / (1600.0 / 48))) < 0.1);
  r = run_cli("arch --params 7B --top 5 -o csv");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("alternatives.rank") != std::string::npos);
  CHECK(r.out.find("architecture.layers") != std::string::npos);  // every row carries the best shape
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 6);  // header and 5 alternatives
  r = run_cli("arch --params 7B -o yaml");
  REQUIRE(r.status == 0);
  CHECK(r.out.find("schema: isoflop/arch/v2") != std::string::npos);
}

TEST_CASE("arch --moe: total and active parameters, dense-equivalent FLOPs, quiet when ST-MoE is followed") {
  const auto r = run_cli("arch --params 269B --moe --experts 64 --tp 8 --ep 64 -o json");
  REQUIRE(r.status == 0);
  CHECK(r.err.empty());
  const auto doc = nlohmann::json::parse(r.out);
  const double total = doc["architecture"]["params"].get<double>(), active = doc["architecture"]["active_params"].get<double>();
  CHECK(doc["params"]["total"].get<double>() == total);
  CHECK(doc["params"]["active"].get<double>() == active);
  CHECK(doc["architecture"]["moe_layers"].get<int>() * 4 == doc["architecture"]["layers"].get<int>());
  CHECK(std::fabs(total / 269e9 - 1) <= 0.02);
  CHECK(active < total / 5);
  CHECK(doc["architecture"]["moe"]["experts"] == 64);
  CHECK(doc["architecture"]["moe"]["top_k"] == 2);
  CHECK(doc["architecture"]["moe"]["capacity_factor"] == 1.25);
  CHECK(doc["architecture"]["moe"]["eval_capacity_factor"] == 2.0);
  CHECK(doc["architecture"]["moe"]["every"] == 4);
  CHECK(doc["inputs"]["moe"]["ep"] == 64);
  // FLOPs per token follow the active parameters (times the capacity factor), far below 6 x total.
  const double dense_equivalent = doc["dense_equivalent_params"].get<double>();
  CHECK(dense_equivalent > 0.8 * active);
  CHECK(dense_equivalent < 1.4 * active);
  CHECK(doc["flops_per_token"].get<double>() == doctest::Approx(6 * dense_equivalent).epsilon(1e-12));
  CHECK(doc["moe_advice"]["departures"].empty());
  CHECK(doc["moe_advice"]["recommended"]["max_experts"] == 256);
  CHECK(doc["moe_advice"]["recommended"]["top_k"] == 2);
  CHECK(doc["inputs"]["moe"]["top_k"].is_null());  // left to the catalog
}

TEST_CASE("arch --moe warns on stderr, citing ST-MoE, for each departure") {
  const auto r = run_cli("arch --params 100B --moe --experts 512 --top-k 1 --capacity-factor 1.0 --ep 128 -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  REQUIRE(doc["moe_advice"]["departures"].size() == 4);
  CHECK(r.err.find("top-1 routing departs from the recommended top-2 (ST-MoE, Zoph et al. 2022)") != std::string::npos);
  CHECK(r.err.find("training capacity factor 1 departs from the recommended 1.25") != std::string::npos);
  CHECK(r.err.find("512 experts exceed the recommended at most 256") != std::string::npos);
  CHECK(r.err.find("4 experts per device (512 over 128 expert-parallel devices)") != std::string::npos);
  // -q silences the warnings but keeps them in the result.
  const auto quiet = run_cli("arch --params 100B --moe --experts 512 --top-k 1 -q -o json");
  REQUIRE(quiet.status == 0);
  CHECK(quiet.err.empty());
  CHECK(nlohmann::json::parse(quiet.out)["moe_advice"]["departures"].size() == 2);
}

TEST_CASE("arch --active-params shapes the active count of a sparse model") {
  const auto doc = run_json("arch --active-params 32B --moe --experts 64 -o json");
  const double active = doc["architecture"]["active_params"].get<double>();
  CHECK(std::fabs(active / 32e9 - 1) <= 0.02);
  CHECK(doc["ratio"].get<double>() == doctest::Approx(active / 32e9).epsilon(1e-12));
  CHECK(doc["architecture"]["params"].get<double>() > 150e9);
  CHECK(doc["inputs"]["params"].is_null());
  CHECK(doc["inputs"]["active_params"].get<double>() == 32e9);
}

TEST_CASE("arch: bad input exits 2 with one line naming the option") {
  CHECK(error_of("arch --params 0") == "isoflop: error: --params: '0' must be positive\n");
  CHECK(error_of("arch --params -70B") == "isoflop: error: --params: '-70B' must be positive\n");
  CHECK(error_of("arch --params 70B --style chinchilla --tp 0") == "isoflop: error: --tp: '0' must be positive\n");
  CHECK(error_of("arch --params 70B --style chinchila") ==
        "isoflop: error: --style: unknown shape family 'chinchila' (did you mean 'chinchilla'?); accepted: "
        "chinchilla, kaplan, llama2, llama3, megatron (see 'isoflop catalog')\n");
  // Values past an int are refused, not wrapped (4294967298 would wrap to 2).
  CHECK(error_of("arch --params 70B --tp 4294967298") ==
        "isoflop: error: --tp: 4294967298 is too large (at most 1000000)\n");
  CHECK(error_of("arch --params 70B --moe --experts 4294967360").find("--experts: 4294967360 is too large") !=
        std::string::npos);
  CHECK(error_of("arch --params 70B --tp 6") ==
        "isoflop: error: --tp: 6 is not a power of 2; accepted: 1, 2, 4, 8, 16, ...\n");
  CHECK(error_of("arch --params 70B --moe --experts 1") ==
        "isoflop: error: --experts: a mixture needs at least 2 experts, got 1\n");
  CHECK(error_of("arch --params 70B --moe --experts 4 --top-k 5") ==
        "isoflop: error: --top-k: 5 exceeds the 4 experts (a token cannot be routed to more experts than exist)\n");
  CHECK(error_of("arch --params 70B --moe --experts 64 --ep 48") ==
        "isoflop: error: --ep: 48 does not divide the 64 experts (each device must hold the same number of experts)\n");
  CHECK(error_of("arch --params 70B --moe") ==
        "isoflop: error: --moe needs --experts E (experts per MoE layer, at least 2)\n");
  CHECK(error_of("arch --params 70B --experts 8") == "isoflop: error: --experts: only with --moe (a sparse model)\n");
  CHECK(error_of("arch --params 70B --active-params 10B --moe --experts 8").find("conflict") != std::string::npos);
  CHECK(error_of("arch") == "isoflop: error: missing input; give one of --params, --active-params\n");
  CHECK(error_of("arch --params 70B --capacity-factor 0 --moe --experts 8").find("--capacity-factor") !=
        std::string::npos);
}

TEST_CASE("arch: a valid request with no shape within 2 % is infeasible (exit 1)") {
  const auto r = run_cli("arch --params 10M --tp 64");
  CHECK(r.status == 1);
  CHECK(r.err.find("isoflop: infeasible: no chinchilla shape") == 0);
}

TEST_CASE("arch output is accepted as it is by layout --arch and flops --from, as JSON and as YAML") {
  const auto dir = isoflop::test::fresh_temp_dir("arch", "handoff");
  for (const char* format : {"json", "yaml"}) {
    INFO(format);
    const auto file = (dir / (std::string("a.") + format)).string();
    const auto arch = run_cli(std::string("arch --params 7B -o ") + format);
    REQUIRE(arch.status == 0);
    std::ofstream(file) << arch.out;
    const auto doc = run_json("layout --arch " + file + " --gpu a100-sxm4-80gb --gpus 64 --global-batch 512 -o json");
    CHECK(doc["architecture"]["layers"] == 41);  // 7B after Chinchilla: 41 x 3584, 28 heads of 128
    CHECK(doc["architecture"]["d_model"] == 3584);
    CHECK(doc["architecture"]["name"] == "a");   // an unnamed architecture takes the file's name
    CHECK(!doc["layouts"].empty());
  }
}

TEST_CASE("arch makes no architecture past the 1e18 parameters a reader accepts: one at the bound reads back") {
  const auto dir = isoflop::test::fresh_temp_dir("arch", "bound");
  // A million experts of a 1e18-parameter model: the shapes within 2 % above the bound are not offered.
  const auto arch = run_cli("arch --moe --experts 1000000 --params 1e18 -o json");
  REQUIRE(arch.status == 0);
  const auto made = nlohmann::json::parse(arch.out);
  const double params = made["architecture"]["params"].get<double>();
  CHECK(params <= 1e18);
  CHECK(params >= 0.98e18);
  const auto file = (dir / "near.json").string();
  std::ofstream(file) << arch.out;
  const auto flops = run_json("flops --arch " + file + " --tokens 1e9 -o json");
  CHECK(flops["architecture"]["params"].get<double>() == params);
}

TEST_CASE("arch: a count below the family's smallest shape names the vocabulary, not the tensor parallelism") {
  // Llama 3's block has a 128,256-token vocabulary: one layer at its narrowest width (1,024) is already 278M.
  const auto small = run_cli("arch --params 30M --style llama3");
  CHECK(small.status == 1);
  CHECK(small.err.find("its smallest, 1 layer of d_model 1024, has 278M parameters: a smaller vocabulary (--vocab)") !=
        std::string::npos);
  CHECK(small.err.find("lower the tensor parallelism") == std::string::npos);
  // With a smaller vocabulary, as it says, a count near its smallest shapes.
  CHECK(run_cli("arch --params 32M --style llama3 --vocab 8192").status == 0);
  // 30M is a small model; 70 is 70B without its unit, and the message says so.
  CHECK(small.err.find("without its unit") == std::string::npos);
  const auto unitless = run_cli("arch --params 70");
  CHECK(unitless.status == 1);
  CHECK(unitless.err.find("a larger count (70 reads as a count without its unit: 70B, 7e10)") != std::string::npos);
}
