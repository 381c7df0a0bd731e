// JSON of accelerators.
#include "doc/hardware_json.hpp"

namespace isoflop::catalog {

using doc::Json;
using doc::or_null;
using doc::read;

void to_json(Json& j, const Accelerator& a) {
  j = Json::object();
  j["name"] = a.name;
  j["display_name"] = a.display_name;
  j["vendor"] = a.vendor;
  j["peak_16bit_flops_per_s"] = a.peak_16bit_flops;
  j["peak_fp32_flops_per_s"] = a.peak_fp32_flops;
  j["peak_fp8_flops_per_s"] = or_null(a.peak_fp8_flops);
  j["memory_bytes"] = a.memory_bytes;
  j["memory_bandwidth_bytes_per_s"] = a.memory_bandwidth_bytes_per_s;
  j["tdp_w"] = a.tdp_w;
  j["measured_power_w"] = or_null(a.measured_power_w);
  j["reference_node"] = a.reference_node;
  j["calibration"] = {{"gemm_efficiency_max", a.gemm_efficiency_max},
                      {"gemm_half_width", a.gemm_half_width},
                      {"gemm_half_rows", a.gemm_half_rows},
                      {"calibrated", a.calibrated},
                      {"comm_efficiency", a.comm_efficiency},
                      {"zero3_overlap", a.zero3_overlap},
                      {"source", a.calibration_source}};
  j["source"] = a.source;
  j["file"] = a.file;
}

void from_json(const Json& j, Accelerator& a) {
  a = Accelerator{};
  read(j, "name", a.name);
  read(j, "display_name", a.display_name);
  read(j, "vendor", a.vendor);
  read(j, "peak_16bit_flops_per_s", a.peak_16bit_flops);
  read(j, "peak_fp32_flops_per_s", a.peak_fp32_flops);
  read(j, "peak_fp8_flops_per_s", a.peak_fp8_flops);
  read(j, "memory_bytes", a.memory_bytes);
  read(j, "memory_bandwidth_bytes_per_s", a.memory_bandwidth_bytes_per_s);
  read(j, "tdp_w", a.tdp_w);
  read(j, "measured_power_w", a.measured_power_w);
  read(j, "reference_node", a.reference_node);
  const Json& c = j.at("calibration");
  read(c, "gemm_efficiency_max", a.gemm_efficiency_max);
  read(c, "gemm_half_width", a.gemm_half_width);
  read(c, "gemm_half_rows", a.gemm_half_rows);
  read(c, "calibrated", a.calibrated);
  read(c, "comm_efficiency", a.comm_efficiency);
  read(c, "zero3_overlap", a.zero3_overlap);
  read(c, "source", a.calibration_source);
  read(j, "source", a.source);
  read(j, "file", a.file);
}

}  // namespace isoflop::catalog
