// Step time of a layout: compute at a shape-dependent GEMM efficiency, recompute, tensor-parallel
// all-reduces, pipeline point-to-point and bubble, data-parallel gradient reduction, MoE all-to-all and
// the optimizer step (Narayanan et al. 2021 §3; Korthikanti et al. 2022).
#pragma once

#include "parallel/layout.hpp"

namespace isoflop::parallel {

struct TimeOptions {
  double dp_overlap = 0.0;  // fraction of the data-parallel reduction hidden behind the backward pass
                            // (Korthikanti et al. 2022 ran without overlap)
  bool operator==(const TimeOptions&) const = default;
};

struct StepBreakdown {
  double compute_s = 0;      // forward + backward GEMMs and attention, all micro-batches, one stage
  double recompute_s = 0;    // recomputed forward work
  double tp_comm_s = 0;      // tensor-parallel all-reduces
  double pp_comm_s = 0;      // pipeline sends and receives
  double bubble_s = 0;       // pipeline fill and drain
  double dp_comm_s = 0;      // exposed data-parallel gradient reduction (and ZeRO-3 gathers)
  double moe_comm_s = 0;     // expert-parallel all-to-all
  double optimizer_s = 0;    // optimizer step (memory-bound)
  bool operator==(const StepBreakdown&) const = default;
};

struct StepTime {
  double step_time_s = 0;
  StepBreakdown breakdown;
  double tokens_per_s = 0;
  double model_flops_per_step = 0;     // Korthikanti eq. 7 (no recompute)
  double hardware_flops_per_step = 0;  // with the recompute actually done
  double model_tflops_per_gpu = 0;
  double hardware_tflops_per_gpu = 0;
  double mfu = 0;                      // model FLOP/s over the 16-bit peak
  double hfu = 0;                      // hardware FLOP/s over the 16-bit peak
  bool operator==(const StepTime&) const = default;
};

// Throws InputError when the accelerator carries no calibration.
StepTime estimate_step_time(const JobSpec& job, const ClusterSpec& cluster, const Layout& layout,
                            const TimeOptions& options = {});

}  // namespace isoflop::parallel
