// Accelerators, nodes and clusters from hardware.yaml.
#pragma once

#include <optional>
#include <string>

#include "catalog/field_reader.hpp"

namespace isoflop::catalog {

struct Accelerator {
  std::string name;                      // kebab-case id: "a100-sxm4-80gb"
  std::string display_name;              // "NVIDIA A100 SXM4 80GB"
  std::string vendor;                    // "nvidia", "amd", "google"
  double peak_16bit_flops = 0;           // dense bf16/fp16 tensor peak, FLOP/s
  double peak_fp32_flops = 0;            // fp32 peak (non-tensor), FLOP/s; 0 where unpublished (TPUs)
  std::optional<double> peak_fp8_flops;  // dense fp8 peak, FLOP/s, where the chip has it
  // bfloat16 tensor math (Ampere, Hopper, CDNA 2, TPUs); without it 16-bit training runs fp16 with loss scaling.
  bool bf16 = true;
  // A FlashAttention kernel for the part (FlashAttention-2 needs compute capability 8.0); without it attention
  // materialises its scores (eager), which the memory model counts.
  bool flash_attention = true;
  // Transformer Engine runs on the part (Ampere and later); without it Megatron-Core runs its local layers.
  bool transformer_engine = true;
  double memory_bytes = 0;               // device memory
  double memory_bandwidth_bytes_per_s = 0;
  double tdp_w = 0;                      // board/chip thermal design power
  std::optional<double> measured_power_w;  // measured average system power per accelerator (Patterson)
  std::string reference_node;            // catalog node that houses it ("dgx-a100"); may be empty
  // Step-time calibration (lib/parallel/efficiency): achieved GEMM efficiency as a fraction of the 16-bit
  // peak, saturating in the per-GPU width w = d_model / TP and in the token rows r = micro-batch × sequence:
  // eff = max · w / (w + half_width) · r / (r + half_rows). 0 = no constants (no step times predicted).
  double gemm_efficiency_max = 0;
  double gemm_half_width = 0;            // width at which the width factor is 1/2
  double gemm_half_rows = 0;             // token rows at which the row factor is 1/2; 0 = rows do not matter
  // True when the constants were fitted to measured runs on this accelerator; false when they are borrowed
  // from another part (the layout and plan outputs then say "uncalibrated").
  bool calibrated = false;
  double comm_efficiency = 0;            // achieved fraction of link bandwidth in collectives
  double zero3_overlap = 0;              // ZeRO-3 prefetching hides its traffic behind this fraction of compute
  // Fixed time per layer per micro-batch, forward and backward, that does not shrink with the shape: the
  // kernel launches and synchronisation a layer costs however small its GEMMs. Models of a few million
  // parameters are bound by it; 0 = not measured (the published runs' layers are too large to show it).
  double layer_overhead_s = 0;
  std::string calibration_source;
  std::string source;
  std::string file;                      // where it was defined (for messages): "data/hardware.yaml:12"
  bool operator==(const Accelerator&) const = default;
};

struct Node {
  std::string name;                       // "dgx-a100"
  std::string display_name;
  std::string accelerator;                // accelerator id
  int gpus_per_node = 0;
  double max_power_w = 0;                 // maximum system power of the node
  double intra_node_bandwidth_bytes_per_s = 0;  // per GPU, per direction (NVLink)
  double inter_node_bandwidth_bytes_per_s = 0;  // per node, per direction (all NICs together)
  std::string network;                    // "8x200 Gb/s HDR InfiniBand"
  int cpu_cores = 0;                      // the host's physical CPU cores; 0 when not given
  std::string source;
  std::string file;
};

struct Cluster {
  std::string name;      // "selene"
  std::string display_name;
  std::string node;      // node id
  int nodes = 0;
  std::string network;   // "HDR InfiniBand fat tree"
  std::string source;
  std::string file;
};

Accelerator parse_accelerator(FieldReader& reader);
// The step-time curve of a `calibration` block, as an accelerator entry and data/validate/cpu.yaml both state
// it: gemm_efficiency_max, gemm_half_width, gemm_half_rows (0 when absent) and layer_overhead_us (0 when absent),
// into `a`'s members of the same names (the overhead in seconds).
void read_gemm_calibration(FieldReader& calibration, Accelerator& a);
Node parse_node(FieldReader& reader);
Cluster parse_cluster(FieldReader& reader);

}  // namespace isoflop::catalog
