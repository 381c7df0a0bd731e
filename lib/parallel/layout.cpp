// Validation of clusters, jobs and layouts: each rule with a message that names it.
#include "parallel/layout.hpp"

#include <limits>

#include "core/error.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::parallel {

void ClusterSpec::validate_node() const {
  if (gpus_per_node <= 0) throw FieldError("gpus_per_node", "must be positive, got " + std::to_string(gpus_per_node));
  if (!(intra_node_bandwidth_bytes_per_s > 0) || !(inter_node_bandwidth_bytes_per_s > 0))
    throw InputError("cluster: intra- and inter-node bandwidths must be positive");
}

void ClusterSpec::validate() const {
  validate_node();
  if (gpus <= 0) throw FieldError("gpus", "must be positive, got " + std::to_string(gpus));
  if (gpus > gpus_per_node && gpus % gpus_per_node != 0)
    throw FieldError("gpus", std::to_string(gpus) + " is not a whole number of " + std::to_string(gpus_per_node) +
                                 "-GPU nodes; give a multiple of " + std::to_string(gpus_per_node) + " (" +
                                 std::to_string(gpus / gpus_per_node * gpus_per_node) + " or " +
                                 std::to_string((gpus / gpus_per_node + 1) * gpus_per_node) +
                                 "), a node count, or the GPUs per node");
}

void JobSpec::apply(const JobSettings& settings, const catalog::Accelerator& accelerator) {
  attention =
      settings.attention.value_or(accelerator.flash_attention ? AttentionKernel::kFlash : AttentionKernel::kEager);
  precision = settings.precision.value_or(accelerator.bf16 ? MatmulPrecision::kBf16 : MatmulPrecision::kFp16);
  dropout = settings.dropout;
  check_runs_on(accelerator);
}

void JobSpec::check_runs_on(const catalog::Accelerator& acc) const {
  if (attention == AttentionKernel::kFlash && !acc.flash_attention)
    throw FieldError("attention", "'flash': FlashAttention has no kernel for " + acc.name +
                                      " (flash_attention: false in the catalog); accepted: eager");
  const char* lacks = precision == MatmulPrecision::kBf16 && !acc.bf16            ? "bfloat16"
                      : precision == MatmulPrecision::kFp8 && !acc.peak_fp8_flops ? "FP8"
                                                                                  : nullptr;
  if (lacks)
    throw FieldError("precision", "'" + std::string(kMatmulPrecisionNames.name(precision)) + "': " + acc.name +
                                      " has no " + lacks + " tensor math; accepted: " +
                                      (acc.bf16 ? "bf16, fp16" : "fp16") + (acc.peak_fp8_flops ? ", fp8" : ""));
}

void JobSpec::validate() const {
  const auto& a = architecture;
  if (a.layers <= 0 || a.d_model <= 0 || a.heads <= 0 || a.vocab <= 0)
    throw InputError("architecture '" + a.name + "': layers, d_model, heads and vocab must be positive");
  if (seq <= 0) throw FieldError("seq", "must be positive, got " + std::to_string(seq));
  if (global_batch <= 0) throw FieldError("global_batch", "must be positive, got " + std::to_string(global_batch));
}

std::string layout_violation(const Layout& l, const JobSpec& job, const ClusterSpec& cluster) {
  const auto v = structural_violation(l, job, cluster);
  return v ? v->reason : "";
}

long long Layout::gpus() const {
  long long n = 1;
  for (const int degree : {tp, pp, cp, dp})
    if (__builtin_mul_overflow(n, static_cast<long long>(degree), &n)) return std::numeric_limits<long long>::max();
  return n;
}

std::string Layout::gpus_text() const {
  const long long n = gpus();
  return n == std::numeric_limits<long long>::max() ? "more than 9.2e18" : std::to_string(n);
}

}  // namespace isoflop::parallel
