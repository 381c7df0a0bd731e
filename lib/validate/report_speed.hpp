// Speed of a validation sweep's runs: the step-time model's prediction for each run's shape on the device it
// ran on, and the calibration that makes the model reproduce them (an overlay `plan --catalog` reads).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "parallel/calibrate.hpp"
#include "validate/report.hpp"

namespace isoflop::validate {

// The CPU as the step-time model sees it without a `cpu` catalog entry: one device whose peak is the one the runs
// measured (fp32 GEMMs through BLAS) and whose efficiency constants are data/validate/cpu.yaml's (fitted on the
// reference machine); main memory at `memory_bandwidth_bytes_per_s` feeds the memory-bound parts (optimizer
// step, embedding, loss).
catalog::Accelerator cpu_accelerator(double peak_flops, double memory_bandwidth_bytes_per_s);

// The catalog id the CPU runs are filed under in the speed table and the calibration overlay.
inline constexpr const char* kCpuAccelerator = "cpu";

// The record each run's device is predicted with: the catalog accelerator it reports (predict_speed takes the
// run's peak, which follows its precision), or for the CPU the catalog's `cpu` entry (a --save-calibration
// overlay) else cpu_accelerator, either at the median of the runs' peaks.
// Throws FieldError("accelerator") for a catalog id the catalog lacks.
std::map<std::string, catalog::Accelerator> speed_accelerators(const std::vector<ReportRun>& runs,
                                                               const catalog::Catalog& catalog,
                                                               double cpu_memory_bandwidth_bytes_per_s);

// One run on one device (no parallelism: the whole batch is one micro-batch), predicted with `accelerator`.
SpeedRow predict_speed(const ReportRun& run, const catalog::Accelerator& accelerator);

// Fits the efficiency constants of every device the finished runs used to their measured tokens/s
// (parallel::calibrate_accelerator), the fixed per-layer time included, for `isoflop calibrate`'s overlay.
std::vector<parallel::CalibrationResult> calibrate_speed(const std::vector<ReportRun>& runs,
                                                         const std::map<std::string, catalog::Accelerator>& accelerators,
                                                         const catalog::Catalog& catalog);

}  // namespace isoflop::validate
