// End-to-end tests of `isoflop calibrate`: one published run reproduced, the overlay written once (no
// overwrite without --force) and used by layout through --catalog, and uncalibrated accelerators labelled.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_json.hpp"
#include "support/run_cli.hpp"
#include "support/temp_files.hpp"

namespace {

namespace fs = std::filesystem;
using namespace isoflop::test;

// Nemotron-4 340B on 128 H100s, BF16, TP 8 x PP 8, VP 12: 4.61 s per step (NVIDIA dgxc-benchmarking
// v24.11.1, nemotron/README_340b.md), as in data/calibration/published_runs.yaml.
const char* kOneRun = R"(runs:
  - name: nemotron4-340b-128
    gpu: h100-sxm5-80gb
    gpus: 128
    arch: {layers: 96, d_model: 18432, heads: 96, kv_heads: 8, ffn: 73728, activation: relu, vocab: 256000,
           seq: 4096, positional: rotary, tied_embeddings: false, bias: false}
    global_batch: 32
    layout: {tp: 8, pp: 8, vpp: 12, micro_batch: 1, zero: 1, sequence_parallel: true}
    measured: {step_time_s: 4.61}
)";

}  // namespace

TEST_CASE("calibrate: one published run is reproduced and saved as an overlay layout reads") {
  const fs::path dir = isoflop::test::fresh_temp_dir("isoflop-calibrate-test", "overlay");
  const std::string runs = (dir / "runs.yaml").string();
  std::ofstream(runs) << kOneRun;
  fs::create_directories(dir / "cal");
  const std::string overlay = (dir / "cal" / "h100.yaml").string();
  const auto r = run_cli("calibrate " + runs + " --save-calibration " + overlay + " -o json");
  INFO(r.err);
  REQUIRE(r.status == 0);
  const auto j = nlohmann::ordered_json::parse(r.out);
  CHECK(j["schema"] == "isoflop/calibration/v2");
  REQUIRE(j["accelerators"].size() == 1);
  const auto& run = j["accelerators"][0]["runs"][0];
  CHECK(run["measured_step_time_s"].get<double>() == doctest::Approx(4.61));
  CHECK(std::fabs(run["error"].get<double>()) < 0.01);
  // One run for four constants: reproduced, and said to leave them undetermined, on stderr and in the overlay's
  // source.
  CHECK(r.err.find("isoflop: note: h100-sxm5-80gb: 1 run for 4 constants: the runs do not determine them all") !=
        std::string::npos);
  std::ifstream saved(overlay);
  const std::string overlay_text((std::istreambuf_iterator<char>(saved)), std::istreambuf_iterator<char>());
  CHECK(overlay_text.find("1 run for 4 constants") != std::string::npos);
  // No run held out: its errors are unknown (null), not a perfect 0.
  const auto& held_out = j["accelerators"][0]["held_out_error"];
  CHECK(held_out["runs"] == 0);
  CHECK(held_out["mean_abs_error"].is_null());
  CHECK(held_out["max_abs_error"].is_null());
  CHECK(j["accelerators"][0]["calibration_error"]["mean_abs_error"].is_number());
  REQUIRE(fs::exists(overlay));

  check_refused("calibrate " + runs + " --save-calibration " + overlay, "--save-calibration");
  CHECK(run_cli("calibrate " + runs + " --save-calibration " + overlay + " --force").status == 0);

  const auto layout = run_cli("layout --catalog " + (dir / "cal").string() +
                              " --arch llama2-70b --gpu h100-sxm5-80gb --gpus 64 --global-batch 512 -o json");
  INFO(layout.err);
  REQUIRE(layout.status == 0);
  const auto calibration = nlohmann::ordered_json::parse(layout.out)["cluster"]["accelerator"]["calibration"];
  CHECK(calibration["calibrated"] == true);
  CHECK(calibration["source"].get<std::string>().find("fitted to 1 measured run (") != std::string::npos);
}

TEST_CASE("layout: an accelerator without measured runs says uncalibrated in the table and the JSON") {
  const std::string args = "layout --arch llama2-70b --gpu h200-sxm-141gb --gpus 64 --global-batch 512";
  const auto table = run_cli(args);
  INFO(table.err);
  REQUIRE(table.status == 0);
  CHECK(table.out.find("step (uncalibrated)") != std::string::npos);
  const auto json = run_cli(args + " -o json");
  REQUIRE(json.status == 0);
  CHECK(nlohmann::ordered_json::parse(json.out)["cluster"]["accelerator"]["calibration"]["calibrated"] == false);
  const auto calibrated = run_cli("layout --arch llama2-70b --gpu h100-sxm5-80gb --gpus 64 --global-batch 512");
  REQUIRE(calibrated.status == 0);
  CHECK(calibrated.out.find("uncalibrated") == std::string::npos);
  // The plan's headline utilisation says so too, not the layouts table alone.
  const auto plan = run_cli("plan --gpus 64 --gpu h200-sxm-141gb --days 3");
  REQUIRE(plan.status == 0);
  CHECK(plan.out.find("% MFU (uncalibrated: no measured runs on h200-sxm-141gb; its efficiency constants are "
                      "borrowed)") != std::string::npos);
  CHECK(run_cli("plan --gpus 64 --gpu h100-sxm5-80gb --days 3").out.find("uncalibrated") == std::string::npos);
}

TEST_CASE("calibrate: bad runs files exit 2 naming the file and line") {
  const fs::path dir = isoflop::test::fresh_temp_dir("isoflop-calibrate-test", "bad");
  const std::string runs = (dir / "runs.yaml").string();
  std::string text = kOneRun;
  text.replace(text.find("step_time_s: 4.61"), 17, "");
  std::ofstream(runs) << text;
  const auto r = run_cli("calibrate " + runs);
  CHECK(r.status == 2);
  CHECK(r.err.find("runs.yaml:") != std::string::npos);
  CHECK(r.err.find("exactly one of") != std::string::npos);
  CHECK(run_cli("calibrate").status == 2);

  // 0.461 s per step would be 10x the measured speed: several times the H100's bf16 peak in model FLOPs alone.
  text = kOneRun;
  text.replace(text.find("step_time_s: 4.61"), 17, "step_time_s: 0.461");
  std::ofstream(runs) << text;
  const auto fast = run_cli("calibrate " + runs);
  CHECK(fast.status == 2);
  CHECK(fast.err.find("runs.yaml:2: run 'nemotron4-340b-128': the measurement means ") != std::string::npos);
  CHECK(fast.err.find("accepted: 0.01% to 100% of the peak") != std::string::npos);
  // A step time in the wrong unit the other way (1e9 s): under a ten-thousandth of the peak, refused, not fitted
  // with every constant at its bound and saved; the share is a number, not an overflowed integer.
  text = kOneRun;
  text.replace(text.find("step_time_s: 4.61"), 17, "step_time_s: 1e9");
  std::ofstream(runs) << text;
  const auto hung = run_cli("calibrate " + runs + " --save-calibration " + (dir / "cal.yaml").string());
  CHECK(hung.status == 2);
  CHECK(hung.err.find("the measurement means 0.000000218% of h100-sxm5-80gb's peak") != std::string::npos);
  CHECK(hung.err.find("accepted: 0.01% to 100% of the peak") != std::string::npos);
  CHECK(!fs::exists(dir / "cal.yaml"));
  // Two runs of one name could not be told apart in the report.
  text = kOneRun;
  text += text.substr(text.find("  - name:"));
  std::ofstream(runs) << text;
  const auto twice = run_cli("calibrate " + runs);
  CHECK(twice.status == 2);
  CHECK(twice.err.find("'nemotron4-340b-128' is also the name of the run at " + runs + ":2") != std::string::npos);
  // A short accelerator or model name: the nearest catalog name is offered, as on the command line.
  text = kOneRun;
  text.replace(text.find("gpu: h100-sxm5-80gb"), 19, "gpu: h100");
  std::ofstream(runs) << text;
  CHECK(run_cli("calibrate " + runs)
            .err.find("runs.yaml:3: run field 'gpu': 'h100' names no accelerator in the "
                      "catalog (did you mean 'h100-sxm5-80gb'?)") != std::string::npos);
  text = kOneRun;
  text.replace(text.find("arch: {"), text.find("    global_batch") - text.find("arch: {"), "arch: llama2-7\n");
  std::ofstream(runs) << text;
  CHECK(run_cli("calibrate " + runs).err.find("'llama2-7' is no model in the catalog (did you mean 'llama2-7b'?)") !=
        std::string::npos);
}

TEST_CASE("calibrate: a run far slower than the model explains leaves a constant at its bound, and says so") {
  // The same run measured at 1000 x its step time (a unit slip): no efficiency in range explains it.
  const fs::path dir = isoflop::test::fresh_temp_dir("isoflop-calibrate-test", "bound");
  const std::string runs = (dir / "runs.yaml").string();
  std::string slow = kOneRun;
  slow.replace(slow.find("step_time_s: 4.61"), 17, "step_time_s: 4610");
  std::ofstream(runs) << slow;
  const auto r = run_cli("calibrate " + runs + " -o json");
  REQUIRE(r.status == 0);
  CHECK(r.err.find("isoflop: note: h100-sxm5-80gb: gemm_efficiency_max at 0.05, its lower bound: the runs lie "
                   "outside what the step-time model explains there") != std::string::npos);
  const auto fitted = nlohmann::ordered_json::parse(r.out)["accelerators"][0];
  CHECK(fitted["gemm_efficiency_max"].get<double>() == doctest::Approx(0.05));
  // As published the run sits inside the range: no note.
  std::ofstream(runs) << kOneRun;
  CHECK(run_cli("calibrate " + runs).err.find("bound") == std::string::npos);
}
