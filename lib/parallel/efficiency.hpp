// Achieved GEMM efficiency as a function of the GEMM's shape on one accelerator: the calibrated part of the
// step-time model. A transformer layer's GEMMs on one GPU have a width (d_model / TP, ffn / TP) and a row count
// (the micro-batch's tokens, b·s); both too small leave tensor cores idle, so efficiency saturates in each.
// Attention's core is per-head GEMMs: its width is the head size and its rows one sequence's s/CP
// (time_model.cpp).
#pragma once

#include "catalog/hardware.hpp"

namespace isoflop::parallel {

// The width of a tensor-parallel layer's GEMMs on one GPU: a column-parallel GEMM multiplies by an h × h/t
// block, a row-parallel one by h/t × h, so the width is the geometric mean √(h · h/t) of the two dimensions
// (h at TP 1; it shrinks as √t, not t, since only one dimension is split).
double gemm_width(double d_model, double tp);

// Fraction of the 16-bit peak reached by a GEMM whose per-GPU width is `width` (gemm_width) and which
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
  double layer_overhead_s = 0;     // fixed time per layer per micro-batch (kernel launches); 0 = not measured
  bool operator==(const EfficiencyConstants&) const = default;
};

EfficiencyConstants efficiency_constants(const catalog::Accelerator& accelerator);
void set_efficiency_constants(catalog::Accelerator& accelerator, const EfficiencyConstants& constants);

}  // namespace isoflop::parallel
