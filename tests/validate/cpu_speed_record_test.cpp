// data/validate/cpu.yaml against the kept cpu sweeps (tests/validate/results): its constants are the fit of the
// 4 x 7 calibration sweep, the fixed per-layer time included, and they predict the two 5 x 7 runs of the cpu
// preset, which they were not fitted to, as the README states.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "parallel/calibrate.hpp"
#include "validate/presets.hpp"
#include "validate/report_document.hpp"
#include "validate/report_speed.hpp"

using namespace isoflop;
using namespace isoflop::validate;
using Json = nlohmann::json;

namespace {

doc::ValidationDocument read_kept(const std::string& name) {
  std::ifstream in(std::string(ISOFLOP_SOURCE_DIR) + "/tests/validate/results/" + name);
  REQUIRE(in.good());
  return Json::parse(in).get<doc::ValidationDocument>();
}

struct SpeedSummary {
  int runs = 0, within = 0;  // within 25 %
  double mean_abs = 0, worst = 0;
};

// The speeds of a kept sweep as its report predicts them: data/validate/cpu.yaml's constants, or `constants`
// (with the sweep's own peak and memory bandwidth either way).
SpeedSummary summarize_speed(const doc::ValidationDocument& d,
                             const std::optional<parallel::EfficiencyConstants>& constants = std::nullopt) {
  const auto devices = speed_accelerators(d.runs, catalog::load_catalog(), d.inputs.cpu_memory_bandwidth_bytes_per_s);
  catalog::Accelerator cpu = devices.at(kCpuAccelerator);
  if (constants) parallel::set_efficiency_constants(cpu, *constants);
  SpeedSummary s;
  for (const auto& r : d.runs) {
    if (!r.finished) continue;
    const double e = std::fabs(predict_speed(r, cpu).error);
    ++s.runs;
    s.within += e <= 0.25;
    s.mean_abs += e;
    s.worst = std::max(s.worst, e);
  }
  s.mean_abs /= s.runs;
  return s;
}

}  // namespace

TEST_CASE("data/validate/cpu.yaml is the fit of its kept calibration sweep, the per-layer time included") {
  const doc::ValidationDocument sweep = read_kept("validate-cpu-4x7-2026-12-05.json");
  REQUIRE(sweep.runs.size() == 28);
  const catalog::Catalog catalog = catalog::load_catalog();
  const auto devices = speed_accelerators(sweep.runs, catalog, sweep.inputs.cpu_memory_bandwidth_bytes_per_s);
  const catalog::Accelerator& cpu = devices.at(kCpuAccelerator);
  CHECK(cpu.layer_overhead_s == doctest::Approx(106.4e-6).epsilon(1e-9));  // about 0.1 ms per layer and step
  const auto refit = calibrate_speed(sweep.runs, devices, catalog);
  REQUIRE(refit.size() == 1);
  std::vector<parallel::RunPrediction> with_file;
  for (const auto& r : sweep.runs) {
    const SpeedRow row = predict_speed(r, cpu);
    // As calibrate_speed states a run: measured step over predicted step (tokens/s the other way round).
    with_file.push_back({r.id, false, 1 / row.measured_tokens_per_s, 1 / row.predicted_tokens_per_s});
  }
  const parallel::ErrorSummary file = parallel::summarize(with_file);
  // The file's constants fit as well as a fresh fit (its optimum is flat) and as the file states: 4.9 % / 14.0 %.
  CHECK(file.rms_log_error <= 1.02 * refit[0].calibration_error.rms_log_error);
  CHECK(file.mean_abs_error == doctest::Approx(0.049).epsilon(0.02));
  CHECK(file.max_abs_error == doctest::Approx(0.140).epsilon(0.02));
  CHECK(refit[0].accelerator.layer_overhead_s == doctest::Approx(cpu.layer_overhead_s).epsilon(0.05));
}

TEST_CASE("the cpu preset's kept 5 x 7 runs, out of sample: the per-layer time brings 67 of 70 timings to 69") {
  const doc::ValidationDocument tuned = read_kept("validate-cpu-5x7-tuned-lr-2026-12-05.json");
  const doc::ValidationDocument kaplan = read_kept("validate-cpu-5x7-2026-12-05.json");
  const SpeedSummary a = summarize_speed(tuned), b = summarize_speed(kaplan);
  // README: 34 of 35 (mean |error| 10.3 %, worst 33.6 %) and 35 of 35 (7.4 %, 18.1 %).
  CHECK(a.runs == 35);
  CHECK(a.within == 34);
  CHECK(a.mean_abs == doctest::Approx(0.103).epsilon(0.01));
  CHECK(a.worst == doctest::Approx(0.336).epsilon(0.01));
  CHECK(b.within == 35);
  CHECK(b.mean_abs == doctest::Approx(0.074).epsilon(0.01));
  CHECK(b.worst == doctest::Approx(0.181).epsilon(0.01));
  // The constants fitted to the same calibration sweep without the per-layer time: 32 and 35 of 35.
  const parallel::EfficiencyConstants without{1.0, 42.75, 45.41, 1, 0};
  const auto c = summarize_speed(tuned, without), k = summarize_speed(kaplan, without);
  CHECK(c.within == 32);
  CHECK(c.worst == doctest::Approx(0.395).epsilon(0.01));
  CHECK(k.within == 35);
  CHECK(k.mean_abs > b.mean_abs);
  CHECK(c.mean_abs > a.mean_abs);
}
