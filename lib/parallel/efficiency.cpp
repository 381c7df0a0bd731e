// The shape-aware GEMM efficiency model. Each factor is a hyperbola (Michaelis–Menten form): a GEMM of
// M × N splits into tiles of fixed size, and its fixed costs (kernel launch, wave quantisation, epilogue,
// memory-bound elementwise work scaling with rows × width rather than rows × width²) weigh as 1/M and 1/N.
#include "parallel/efficiency.hpp"

#include <cmath>

namespace isoflop::parallel {

double gemm_width(double d_model, double tp) { return std::sqrt(d_model * d_model / tp); }

double gemm_efficiency(const catalog::Accelerator& a, double width, double rows) {
  if (!(a.gemm_efficiency_max > 0) || !(width > 0)) return 0;
  const double width_factor = width / (width + a.gemm_half_width);
  const double row_factor = a.gemm_half_rows > 0 && rows > 0 ? rows / (rows + a.gemm_half_rows) : 1.0;
  return a.gemm_efficiency_max * width_factor * row_factor;
}

EfficiencyConstants efficiency_constants(const catalog::Accelerator& a) {
  return {a.gemm_efficiency_max, a.gemm_half_width, a.gemm_half_rows, a.comm_efficiency, a.layer_overhead_s};
}

void set_efficiency_constants(catalog::Accelerator& a, const EfficiencyConstants& c) {
  a.gemm_efficiency_max = c.gemm_efficiency_max;
  a.gemm_half_width = c.gemm_half_width;
  a.gemm_half_rows = c.gemm_half_rows;
  a.comm_efficiency = c.comm_efficiency;
  a.layer_overhead_s = c.layer_overhead_s;
}

}  // namespace isoflop::parallel
