// JSON, table and catalog overlay of a calibration.
#include "doc/calibration_document.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdio>

#include "catalog/catalog.hpp"
#include "catalog/measured_runs.hpp"
#include "core/input_file.hpp"
#include "report/text_table.hpp"
#include "units/si.hpp"

namespace isoflop::doc {
namespace {

// No run, no error: null, not a 0 that reads as a perfect prediction.
Json error_json(const parallel::ErrorSummary& e) {
  const auto value = [&](double v) { return e.runs > 0 ? Json(v) : Json(nullptr); };
  return {{"runs", e.runs},
          {"mean_abs_error", value(e.mean_abs_error)},
          {"max_abs_error", value(e.max_abs_error)},
          {"rms_log_error", value(e.rms_log_error)}};
}

std::string percent(double fraction) {
  char b[32];
  std::snprintf(b, sizeof b, "%+.1f%%", 100 * fraction);
  return b;
}

std::string fixed(double v, const char* format) {
  char b[48];
  std::snprintf(b, sizeof b, format, v);
  return b;
}

}  // namespace

CalibrationDocument calibration_document(const catalog::Catalog& catalog, const std::string& runs_file,
                                         const std::optional<std::string>& gpu) {
  const auto runs = catalog::parse_measured_runs(read_input_text(runs_file), input_name(runs_file), catalog);
  return {input_name(runs_file), gpu, parallel::calibrate_runs(catalog, runs, gpu)};
}

Json calibration_json(const CalibrationDocument& d) {
  Json j = Json::object();
  j["schema"] = schema_id("calibration");
  j["inputs"] = {{"runs_file", d.runs_file}, {"gpu", d.gpu ? Json(*d.gpu) : Json()}};
  j["accelerators"] = Json::array();
  for (const auto& r : d.results) {
    const auto& a = r.accelerator;
    Json runs = Json::array();
    for (const auto* list : {&r.calibration, &r.held_out})
      for (const auto& p : *list)
        runs.push_back({{"name", p.name}, {"held_out", p.held_out}, {"measured_step_time_s", p.measured_step_time_s},
                        {"predicted_step_time_s", p.predicted_step_time_s}, {"error", p.error()}});
    j["accelerators"].push_back({{"name", a.name}, {"gemm_efficiency_max", a.gemm_efficiency_max},
                                 {"gemm_half_width", a.gemm_half_width}, {"gemm_half_rows", a.gemm_half_rows},
                                 {"comm_efficiency", a.comm_efficiency}, {"layer_overhead_s", a.layer_overhead_s},
                                 {"calibration_error", error_json(r.calibration_error)},
                                 {"held_out_error", error_json(r.held_out_error)}, {"runs", runs}});
  }
  return j;
}

void to_json(Json& j, const CalibrationDocument& d) { j = calibration_json(d); }

void from_json(const Json& j, CalibrationDocument& d) {
  d = CalibrationDocument{};
  const Json& inputs = j.at("inputs");
  read(inputs, "runs_file", d.runs_file);
  read(inputs, "gpu", d.gpu);
  auto read_error = [](const Json& e, parallel::ErrorSummary& out) {
    read(e, "runs", out.runs);
    for (const auto& [key, field] : {std::pair<const char*, double*>{"mean_abs_error", &out.mean_abs_error},
                                     {"max_abs_error", &out.max_abs_error},
                                     {"rms_log_error", &out.rms_log_error}})
      if (!e.at(key).is_null()) read(e, key, *field);  // null where no run was judged
  };
  for (const Json& a : j.at("accelerators")) {
    parallel::CalibrationResult r;
    read(a, "name", r.accelerator.name);
    read(a, "gemm_efficiency_max", r.accelerator.gemm_efficiency_max);
    read(a, "gemm_half_width", r.accelerator.gemm_half_width);
    read(a, "gemm_half_rows", r.accelerator.gemm_half_rows);
    read(a, "comm_efficiency", r.accelerator.comm_efficiency);
    if (a.contains("layer_overhead_s")) read(a, "layer_overhead_s", r.accelerator.layer_overhead_s);  // added later
    read_error(a.at("calibration_error"), r.calibration_error);
    read_error(a.at("held_out_error"), r.held_out_error);
    for (const Json& run : a.at("runs")) {
      parallel::RunPrediction p;
      read(run, "name", p.name);
      read(run, "held_out", p.held_out);
      read(run, "measured_step_time_s", p.measured_step_time_s);
      read(run, "predicted_step_time_s", p.predicted_step_time_s);
      (p.held_out ? r.held_out : r.calibration).push_back(p);
    }
    d.results.push_back(std::move(r));
  }
}

std::string render_calibration(const CalibrationDocument& d) {
  std::string out;
  for (const auto& r : d.results) {
    const auto& a = r.accelerator;
    out += a.name + ": gemm_efficiency_max " + fixed(a.gemm_efficiency_max, "%.4f") + ", gemm_half_width " +
           fixed(a.gemm_half_width, "%.1f") + ", gemm_half_rows " + fixed(a.gemm_half_rows, "%.1f") +
           ", comm_efficiency " + fixed(a.comm_efficiency, "%.4f") +
           (a.layer_overhead_s > 0
                ? ", layer_overhead " + fixed(a.layer_overhead_s / units::kSecondsPerMicrosecond, "%.1f us")
                : "") +
           "\n";
    report::TextTable table({"run", "held out", "measured step", "predicted step", "error"});
    for (const auto* list : {&r.calibration, &r.held_out})
      for (const auto& p : *list)
        table.add_row({p.name, p.held_out ? "yes" : "", fixed(p.measured_step_time_s, "%.3f s"),
                       fixed(p.predicted_step_time_s, "%.3f s"), percent(p.error())});
    out += table.render();
    out += "fitted runs: mean |error| " + fixed(100 * r.calibration_error.mean_abs_error, "%.1f%%") + ", max " +
           fixed(100 * r.calibration_error.max_abs_error, "%.1f%%");
    if (r.held_out_error.runs > 0)
      out += "; held-out runs: mean |error| " + fixed(100 * r.held_out_error.mean_abs_error, "%.1f%%") + ", max " +
             fixed(100 * r.held_out_error.max_abs_error, "%.1f%%");
    out += "\n\n";
  }
  return out;
}

std::string calibration_overlay_yaml(const CalibrationDocument& d) {
  YAML::Emitter y;
  y.SetDoublePrecision(10);
  y << YAML::BeginMap << YAML::Key << "accelerators" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : d.results) {
    const auto& a = r.accelerator;
    y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << a.name;
    y << YAML::Key << "display_name" << YAML::Value << a.display_name;
    y << YAML::Key << "vendor" << YAML::Value << a.vendor;
    y << YAML::Key << "peak_16bit_tflops" << YAML::Value << a.peak_16bit_flops / 1e12;
    if (a.peak_fp32_flops > 0) y << YAML::Key << "peak_fp32_tflops" << YAML::Value << a.peak_fp32_flops / 1e12;
    if (a.peak_fp8_flops) y << YAML::Key << "peak_fp8_tflops" << YAML::Value << *a.peak_fp8_flops / 1e12;
    if (!a.bf16) y << YAML::Key << "bf16" << YAML::Value << false;
    if (!a.flash_attention) y << YAML::Key << "flash_attention" << YAML::Value << false;
    if (!a.transformer_engine) y << YAML::Key << "transformer_engine" << YAML::Value << false;
    if (a.memory_bytes > 0) y << YAML::Key << "memory_gb" << YAML::Value << a.memory_bytes / 1e9;  // none on a CPU
    y << YAML::Key << "memory_bandwidth_gb_per_s" << YAML::Value << a.memory_bandwidth_bytes_per_s / 1e9;
    if (a.tdp_w > 0) y << YAML::Key << "tdp" << YAML::Value << fixed(a.tdp_w, "%.10g W");
    if (a.measured_power_w) y << YAML::Key << "measured_power" << YAML::Value << fixed(*a.measured_power_w, "%.10g W");
    if (!a.reference_node.empty()) y << YAML::Key << "reference_node" << YAML::Value << a.reference_node;
    y << YAML::Key << "calibration" << YAML::Value << YAML::BeginMap;
    y << YAML::Key << "gemm_efficiency_max" << YAML::Value << a.gemm_efficiency_max;
    y << YAML::Key << "gemm_half_width" << YAML::Value << a.gemm_half_width;
    y << YAML::Key << "gemm_half_rows" << YAML::Value << a.gemm_half_rows;
    y << YAML::Key << "calibrated" << YAML::Value << true;
    y << YAML::Key << "comm_efficiency" << YAML::Value << a.comm_efficiency;
    y << YAML::Key << "zero3_overlap" << YAML::Value << a.zero3_overlap;
    if (a.layer_overhead_s > 0)
      y << YAML::Key << "layer_overhead_us" << YAML::Value << a.layer_overhead_s / units::kSecondsPerMicrosecond;
    y << YAML::Key << "source" << YAML::Value << a.calibration_source + " from " + d.runs_file;
    y << YAML::EndMap;
    y << YAML::Key << "source" << YAML::Value << a.source;
    y << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap;
  std::string text = std::string(y.c_str()) + "\n";
  catalog::Catalog check = catalog::embedded_catalog();
  catalog::merge_catalog_text(text, "calibration overlay", &check);  // what is written must load
  return text;
}

}  // namespace isoflop::doc
