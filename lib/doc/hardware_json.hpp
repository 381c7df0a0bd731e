// JSON of an accelerator (catalog::Accelerator) and of a cluster (parallel::ClusterSpec): every field of the
// catalog record in SI units, so a document that carries a cluster (a layout's or a plan's) re-ranks layouts
// without the catalog. Bandwidths are per GPU and per direction (the inter-node one is the node's NICs shared
// by its GPUs). The calibration's "calibrated" is false where the constants are borrowed from another part (step
// times uncalibrated). The catalog listing writes accelerators in its own units (doc/catalog_json.hpp).
#pragma once

#include "catalog/hardware.hpp"
#include "doc/fields.hpp"
#include "parallel/layout.hpp"

namespace isoflop::doc {

template <>
inline constexpr auto fields<catalog::Accelerator> =
    std::tuple{field("name", &catalog::Accelerator::name),
               field("display_name", &catalog::Accelerator::display_name),
               field("vendor", &catalog::Accelerator::vendor),
               field("peak_16bit_flops_per_s", &catalog::Accelerator::peak_16bit_flops),
               field("peak_fp32_flops_per_s", &catalog::Accelerator::peak_fp32_flops),
               field("peak_fp8_flops_per_s", &catalog::Accelerator::peak_fp8_flops),  // null where the chip has none
               added_later(field("bf16", &catalog::Accelerator::bf16)),
               added_later(field("flash_attention", &catalog::Accelerator::flash_attention)),
               added_later(field("transformer_engine", &catalog::Accelerator::transformer_engine)),
               field("memory_bytes", &catalog::Accelerator::memory_bytes),
               field("memory_bandwidth_bytes_per_s", &catalog::Accelerator::memory_bandwidth_bytes_per_s),
               field("tdp_w", &catalog::Accelerator::tdp_w),
               field("measured_power_w", &catalog::Accelerator::measured_power_w),  // null where unmeasured
               field("reference_node", &catalog::Accelerator::reference_node),
               group("calibration", field("gemm_efficiency_max", &catalog::Accelerator::gemm_efficiency_max),
                     field("gemm_half_width", &catalog::Accelerator::gemm_half_width),
                     field("gemm_half_rows", &catalog::Accelerator::gemm_half_rows),
                     field("calibrated", &catalog::Accelerator::calibrated),
                     field("comm_efficiency", &catalog::Accelerator::comm_efficiency),
                     field("zero3_overlap", &catalog::Accelerator::zero3_overlap),
                     added_later(field("layer_overhead_s", &catalog::Accelerator::layer_overhead_s)),
                     field("source", &catalog::Accelerator::calibration_source)),
               field("source", &catalog::Accelerator::source),
               field("file", &catalog::Accelerator::file)};

template <>
inline constexpr auto fields<parallel::ClusterSpec> =
    std::tuple{field("gpus", &parallel::ClusterSpec::gpus),
               field("gpus_per_node", &parallel::ClusterSpec::gpus_per_node),
               field("node", &parallel::ClusterSpec::node_name),
               field("intra_node_bandwidth_bytes_per_s", &parallel::ClusterSpec::intra_node_bandwidth_bytes_per_s),
               field("inter_node_bandwidth_bytes_per_s", &parallel::ClusterSpec::inter_node_bandwidth_bytes_per_s),
               field("accelerator", &parallel::ClusterSpec::accelerator)};

}  // namespace isoflop::doc
