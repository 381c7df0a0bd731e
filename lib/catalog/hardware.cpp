// Parsing hardware.yaml entries. Peaks are given in TFLOP/s, memory in GB, bandwidth in GB/s (decimal
// units, as datasheets print them), and converted to SI here.
#include "catalog/hardware.hpp"

#include "catalog/entry_fields.hpp"
#include "units/si.hpp"

namespace isoflop::catalog {
namespace {
constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;
}  // namespace

Accelerator parse_accelerator(FieldReader& r) {
  return read_named_entry<Accelerator>(r, [&](Accelerator& a) {
    a.vendor = r.string_or("vendor", "");
    a.peak_16bit_flops = r.positive("peak_16bit_tflops") * kTera;
    if (auto fp32 = r.optional_positive("peak_fp32_tflops")) a.peak_fp32_flops = *fp32 * kTera;
    if (auto fp8 = r.optional_positive("peak_fp8_tflops")) a.peak_fp8_flops = *fp8 * kTera;
    a.bf16 = r.boolean_or("bf16", true);
    a.flash_attention = r.boolean_or("flash_attention", true);
    a.transformer_engine = r.boolean_or("transformer_engine", true);
    // A CPU (vendor "cpu", as a validation sweep's calibration overlay writes it) is described by its measured peak
    // and memory bandwidth; it has no device memory or board power of its own to state.
    const bool cpu = a.vendor == "cpu";
    a.memory_bytes = cpu ? r.optional_positive("memory_gb").value_or(0) * kGiga : r.positive("memory_gb") * kGiga;
    a.memory_bandwidth_bytes_per_s = r.positive("memory_bandwidth_gb_per_s") * kGiga;
    a.tdp_w = cpu ? r.optional_power_w("tdp").value_or(0) : r.power_w("tdp");
    a.measured_power_w = r.optional_power_w("measured_power");
    a.reference_node = r.string_or("reference_node", "");
    if (auto cal = r.optional_child("calibration")) {
      FieldReader c(*cal, r.file(), "calibration of accelerator '" + a.name + "'");
      read_gemm_calibration(c, a);
      a.calibrated = c.boolean_or("calibrated", false);
      a.comm_efficiency = c.fraction("comm_efficiency");
      a.zero3_overlap = c.non_negative_or("zero3_overlap", 0);
      if (a.zero3_overlap > 1) c.fail("zero3_overlap", "must be a fraction in [0, 1]");
      a.calibration_source = c.string("source");
      c.finish();
    }
  });
}

void read_gemm_calibration(FieldReader& c, Accelerator& a) {
  a.gemm_efficiency_max = c.fraction("gemm_efficiency_max");
  a.gemm_half_width = c.positive("gemm_half_width");
  a.gemm_half_rows = c.non_negative_or("gemm_half_rows", 0);
  a.layer_overhead_s = c.non_negative_or("layer_overhead_us", 0) * units::kSecondsPerMicrosecond;
}

Node parse_node(FieldReader& r) {
  return read_named_entry<Node>(r, [&](Node& n) {
    n.accelerator = r.string("accelerator");
    n.gpus_per_node = r.int_in("gpus_per_node", 1, 65536);
    n.max_power_w = r.power_w("max_power");
    n.intra_node_bandwidth_bytes_per_s = r.positive("intra_node_bandwidth_gb_per_s") * kGiga;
    n.inter_node_bandwidth_bytes_per_s = r.positive("inter_node_bandwidth_gb_per_s") * kGiga;
    n.network = r.string_or("network", "");
    n.cpu_cores = r.int_in_or("cpu_cores", 1, 1'000'000, 0);
  });
}

Cluster parse_cluster(FieldReader& r) {
  return read_named_entry<Cluster>(r, [&](Cluster& c) {
    c.node = r.string("node");
    c.nodes = r.int_in("nodes", 1, 100'000'000);
    c.network = r.string_or("network", "");
  });
}

}  // namespace isoflop::catalog
