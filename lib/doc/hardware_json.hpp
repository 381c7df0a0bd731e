// JSON of an accelerator (catalog::Accelerator): every field of the catalog record, in SI units, so a document
// that carries it (a layout's or a plan's cluster) re-ranks layouts without the catalog.
//
//   {"name", "display_name", "vendor", "peak_16bit_flops_per_s", "peak_fp32_flops_per_s",
//    "peak_fp8_flops_per_s" (null where the chip has none), "memory_bytes", "memory_bandwidth_bytes_per_s",
//    "tdp_w", "measured_power_w" (null where unmeasured), "reference_node",
//    "calibration": {"gemm_efficiency_max", "gemm_half_width", "gemm_half_rows", "calibrated" (false: constants
//                    borrowed from another part, step times uncalibrated), "comm_efficiency", "zero3_overlap", "source"},
//    "source", "file"}
#pragma once

#include "catalog/hardware.hpp"
#include "doc/document.hpp"

namespace isoflop::catalog {

void to_json(doc::Json& j, const Accelerator& accelerator);
void from_json(const doc::Json& j, Accelerator& accelerator);

}  // namespace isoflop::catalog
