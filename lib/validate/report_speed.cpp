// Step-time predictions for a sweep's runs and their calibration.
#include "validate/report_speed.hpp"

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "fit/bootstrap.hpp"
#include "parallel/time_model.hpp"
#include "validate/presets.hpp"

namespace isoflop::validate {
namespace {

parallel::JobSpec job_of(const ReportRun& run) {
  parallel::JobSpec job;
  job.architecture = run.architecture;
  job.seq = run.architecture.seq;
  job.global_batch = run.batch;
  job.bytes_per_value = 4;  // the trainer keeps fp32 weights, gradients and activations (bf16 only in its GEMMs)
  return job;
}

parallel::Layout layout_of(const ReportRun& run) {
  parallel::Layout layout;
  layout.micro_batch = static_cast<int>(run.batch);  // the trainer steps the whole batch at once
  return layout;
}

// The name of the node a single CPU or GPU run sits in.
std::string single_device_node_name(const std::string& accelerator) { return accelerator + "-single"; }

// That node, for the calibration's cluster lookup; one device, no links used.
catalog::Node single_device_node(const catalog::Accelerator& a) {
  catalog::Node n;
  n.name = single_device_node_name(a.name);
  n.display_name = a.display_name;
  n.accelerator = a.name;
  n.gpus_per_node = 1;
  n.intra_node_bandwidth_bytes_per_s = a.memory_bandwidth_bytes_per_s;
  n.inter_node_bandwidth_bytes_per_s = a.memory_bandwidth_bytes_per_s;
  n.source = "one device of the validation sweep";
  return n;
}

}  // namespace

catalog::Accelerator cpu_accelerator(double peak_flops, double memory_bandwidth_bytes_per_s) {
  catalog::Accelerator a;
  a.name = kCpuAccelerator;
  a.display_name = "CPU (measured fp32 GEMM peak)";
  a.vendor = "cpu";
  a.peak_16bit_flops = a.peak_fp32_flops = peak_flops;
  a.memory_bandwidth_bytes_per_s = memory_bandwidth_bytes_per_s;
  const CpuSpeedConstants& cpu = sweep_settings().cpu;
  parallel::set_efficiency_constants(a, cpu.constants);
  a.calibrated = false;  // fitted on the reference machine, borrowed on this one
  a.calibration_source = "data/validate/cpu.yaml: " + cpu.source;
  a.source = "peak measured by the runs (sgemm)";
  return a;
}

std::map<std::string, catalog::Accelerator> speed_accelerators(const std::vector<ReportRun>& runs,
                                                               const catalog::Catalog& catalog,
                                                               double cpu_memory_bandwidth_bytes_per_s) {
  std::map<std::string, catalog::Accelerator> out;
  std::vector<double> cpu_peaks;
  for (const auto& r : runs) {
    if (!r.finished || !(r.peak_flops > 0)) continue;
    if (r.accelerator == kCpuAccelerator)
      cpu_peaks.push_back(r.peak_flops);
    else if (!out.count(r.accelerator))
      out.emplace(r.accelerator, catalog.accelerator(r.accelerator, "accelerator"));
  }
  // Each CPU run times sgemm for a moment before it trains; on a shared machine one such timing can catch a
  // busy moment, so the CPU's peak is the median of the runs' timings.
  if (cpu_peaks.empty()) return out;
  const double peak = fit::quantile(cpu_peaks, 0.5);
  catalog::Accelerator cpu = cpu_accelerator(peak, cpu_memory_bandwidth_bytes_per_s);
  // A CPU entry in the catalog (the overlay --save-calibration wrote from an earlier sweep, read with --catalog)
  // brings its fitted efficiency constants and memory bandwidth; the peak stays this sweep's measurement.
  if (const catalog::Accelerator* entry = catalog.find_accelerator(kCpuAccelerator)) {
    cpu = *entry;
    cpu.peak_16bit_flops = cpu.peak_fp32_flops = peak;
  }
  out.emplace(kCpuAccelerator, cpu);
  return out;
}

SpeedRow predict_speed(const ReportRun& run, const catalog::Accelerator& accelerator) {
  parallel::ClusterSpec cluster;
  cluster.accelerator = accelerator;
  // A GPU run's MFU is measured against its precision's catalog peak; the CPU's peak is the sweep's median.
  if (run.peak_flops > 0 && accelerator.name != kCpuAccelerator) cluster.accelerator.peak_16bit_flops = run.peak_flops;
  cluster.gpus = 1;
  cluster.gpus_per_node = 1;
  const parallel::StepTime st = parallel::estimate_step_time(job_of(run), cluster, layout_of(run));
  // The measured MFU over the peak the prediction used: on the CPU each run's own sgemm timing is noisier than
  // the sweep's median, and measured and predicted MFU should share one denominator.
  std::optional<double> measured_mfu;
  if (run.mfu && run.peak_flops > 0) measured_mfu = *run.mfu * run.peak_flops / cluster.accelerator.peak_16bit_flops;
  // The predicted MFU counts FLOPs as the run did (the trainer's own count per token, not the model's Megatron
  // count), so the two MFU columns differ exactly as the tokens/s do; without a measured MFU, the model's own.
  const double predicted_mfu =
      measured_mfu && run.tokens_per_s > 0 ? *measured_mfu * st.tokens_per_s / run.tokens_per_s : st.mfu;
  return SpeedRow{.id = run.id,
                  .params = run.params,
                  .measured_tokens_per_s = run.tokens_per_s,
                  .predicted_tokens_per_s = st.tokens_per_s,
                  .measured_mfu = measured_mfu,
                  .predicted_mfu = predicted_mfu,
                  .error = st.tokens_per_s / run.tokens_per_s - 1,
                  .constants = accelerator.calibration_source.empty()
                                   ? "accelerator '" + accelerator.name + "': the catalog gives no calibration source"
                                   : accelerator.calibration_source};
}

std::vector<parallel::CalibrationResult> calibrate_speed(const std::vector<ReportRun>& runs,
                                                         const std::map<std::string, catalog::Accelerator>& accelerators,
                                                         const catalog::Catalog& catalog) {
  catalog::Catalog with_devices = catalog;
  std::vector<catalog::MeasuredRun> measured;
  for (const auto& [name, accelerator] : accelerators) {
    catalog::Accelerator a = accelerator;
    a.reference_node.clear();  // the overlay names no node: the catalog's nodes stay as they are
    // The record the runs were predicted with (the CPU's peak is this sweep's) replaces a catalog entry.
    auto same = std::find_if(with_devices.accelerators.begin(), with_devices.accelerators.end(),
                             [&key = name](const catalog::Accelerator& e) { return e.name == key; });
    if (same == with_devices.accelerators.end() || name == kCpuAccelerator) {
      if (same != with_devices.accelerators.end()) with_devices.accelerators.erase(same);
      with_devices.accelerators.push_back(a);
    }
    with_devices.nodes.push_back(single_device_node(a));
  }
  for (const auto& r : runs) {
    if (!r.finished || !(r.tokens_per_s > 0) || !accelerators.count(r.accelerator)) continue;
    catalog::MeasuredRun m;
    m.name = r.id;
    m.gpu = r.accelerator;
    m.node = single_device_node_name(r.accelerator);
    m.gpus = 1;
    // The job and micro-batch the runs were predicted with.
    const parallel::JobSpec job = job_of(r);
    m.architecture = job.architecture;
    m.seq = job.seq;
    m.global_batch = job.global_batch;
    m.micro_batch = layout_of(r).micro_batch;
    m.metric = catalog::MeasuredMetric::kTokensPerSPerGpu;
    m.value = r.tokens_per_s;
    m.source = "validation sweep run " + r.id;
    m.file = r.id;
    measured.push_back(m);
  }
  if (measured.empty()) throw FieldError("save_calibration", "no finished run reports its speed and device");
  // A sweep's layers are small enough that their fixed per-layer time shows: it is fitted with the GEMM curve.
  parallel::CalibrationOptions options;
  options.fit_layer_overhead = true;
  return parallel::calibrate_runs(with_devices, measured, std::nullopt, options);
}

}  // namespace isoflop::validate
