// End-to-end tests of `isoflop layout`: JSON fields, the MT-NLG layouts, bad input and infeasibility.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "support/run_cli.hpp"

using isoflop::test::run_cli;

namespace {
const std::string kMtNlg = "layout --arch mt-nlg-530b --gpu a100-sxm4-80gb --global-batch 1920 ";
}

TEST_CASE("layout JSON carries every field of a layout") {
  const auto r = run_cli(kMtNlg + "--gpus 2240 --tp 8 --pp 35 -o json");
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema"] == "isoflop/layout/v1");
  CHECK(doc["inputs"]["gpus"] == 2240);
  REQUIRE(!doc["layouts"].empty());
  const auto& best = doc["layouts"][0];
  for (const char* key : {"tp", "pp", "dp", "ep", "vpp", "micro_batch", "zero_stage", "recompute", "sequence_parallel",
                          "memory_gib", "memory_breakdown", "step_time_s", "step_breakdown", "tokens_per_s",
                          "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu"}) {
    INFO(key);
    CHECK(best.contains(key));
  }
  CHECK(best["tp"] == 8);
  CHECK(best["pp"] == 35);
  CHECK(best["dp"] == 8);
  CHECK(best["memory_gib"].get<double>() < 80);
  CHECK(best["mfu"].get<double>() > 0.3);
  CHECK(best["mfu"].get<double>() < 0.7);
}

TEST_CASE("layout: per-GPU throughput falls as data parallelism grows (TP 8 x PP 35)") {
  double previous = 1e9;
  for (int gpus : {2240, 2800, 3360}) {
    const auto r = run_cli(kMtNlg + "--gpus " + std::to_string(gpus) + " --tp 8 --pp 35 --top 1 -o json");
    REQUIRE(r.status == 0);
    const double tflops = nlohmann::json::parse(r.out)["layouts"][0]["model_tflops_per_gpu"].get<double>();
    CHECK(tflops < previous);
    previous = tflops;
  }
}

TEST_CASE("layout table, CSV and YAML outputs") {
  auto r = run_cli(kMtNlg + "--gpus 3360");
  CHECK(r.status == 0);
  CHECK(r.out.find("Best layout, memory per GPU:") != std::string::npos);
  CHECK(r.out.find("Pruned TP x PP families:") != std::string::npos);
  r = run_cli(kMtNlg + "--gpus 3360 -o csv");
  CHECK(r.status == 0);
  CHECK(r.out.rfind("tp,pp,dp,", 0) == 0);
  r = run_cli(kMtNlg + "--gpus 3360 -o yaml");
  CHECK(r.status == 0);
  CHECK(r.out.find("schema: isoflop/layout/v1") != std::string::npos);
}

TEST_CASE("layout bad input exits 2 with one line — infeasible exits 1 with advice") {
  const char* bad[] = {
      "--gpus 2244",                       // not whole nodes
      "--gpus 2240 --tp 3",                // heads % TP
      "--gpus 2240 --pp 4",                // layers % PP
      "--gpus 2240 --dp 7 --tp 8",         // batch % DP (and product)
      "--gpus 0",                          // zero
      "--gpus -8",                         // negative
      "--gpus 2240 --micro-batch 0",
      "--gpus 2240 --zero 4",
      "--gpus 2240 --recompute some",
      "--gpus 2240 --sequence-parallel maybe",
      "--gpus 2240 --objective speed",
      "--gpus 2240 --gpu h100-sxm5",       // did you mean
      "",                                  // no cluster size
  };
  for (const char* args : bad) {
    INFO(args);
    const auto r = run_cli(kMtNlg + args);
    CHECK(r.status == 2);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  }
  auto r = run_cli("layout --arch mt-nlg-530b --gpu a100-sxm4-80gb --gpus 2240");
  CHECK(r.status == 2);  // no global batch
  r = run_cli("layout --arch mt-nlg-530x --gpu a100-sxm4-80gb --gpus 2240 --global-batch 1920");
  CHECK(r.status == 2);
  CHECK(r.err.find("did you mean 'mt-nlg-530b'") != std::string::npos);
  r = run_cli("layout --arch mt-nlg-530b --gpu a100-sxm4-80gb --gpus 8 --global-batch 8");
  CHECK(r.status == 1);
  CHECK(r.err.find("the smallest needs") != std::string::npos);
  CHECK(r.err.find("ZeRO-3") != std::string::npos);
}
