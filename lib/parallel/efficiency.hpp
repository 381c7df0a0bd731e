// Achieved GEMM efficiency as a function of the GEMM's shape on one accelerator: the calibrated part of the
// step-time model. A transformer layer's GEMMs on one GPU have a width (d_model / TP, ffn / TP) and a row count
// (the micro-batch's tokens, b·s); both too small leave tensor cores idle, so efficiency saturates in each.
#pragma once

#include "catalog/hardware.hpp"

namespace isoflop::parallel {

// Fraction of the 16-bit peak reached by a GEMM whose per-GPU width is `width` (d_model / TP) and which
// multiplies `rows` token rows (micro-batch × sequence / context-parallel degree):
//   eff = max · w / (w + w½) · r / (r + r½)
// with max, w½ (gemm_half_width) and r½ (gemm_half_rows; 0 = rows do not matter) from the accelerator's
// calibration in hardware.yaml. Returns 0 for an accelerator without calibration constants.
double gemm_efficiency(const catalog::Accelerator& accelerator, double width, double rows);

// The constants the shape model reads, in the order the calibration fits them.
struct EfficiencyConstants {
  double gemm_efficiency_max = 0;  // asymptotic fraction of the peak for wide, tall GEMMs
  double gemm_half_width = 0;      // per-GPU width at which the width factor is 1/2
  double gemm_half_rows = 0;       // token rows at which the row factor is 1/2
  double comm_efficiency = 0;      // achieved fraction of link bandwidth in collectives
  bool operator==(const EfficiencyConstants&) const = default;
};

EfficiencyConstants efficiency_constants(const catalog::Accelerator& accelerator);
void set_efficiency_constants(catalog::Accelerator& accelerator, const EfficiencyConstants& constants);

}  // namespace isoflop::parallel
