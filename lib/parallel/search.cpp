// The layout search: a nested enumeration over divisors, with memory checked before the step time.
#include "parallel/search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/error.hpp"

namespace isoflop::parallel {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string gib(double bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", bytes / kGiB);
  return buffer;
}

std::vector<int> divisors(long long n, long long limit) {
  std::vector<int> out;
  for (long long d = 1; d <= n && d <= limit; ++d)
    if (n % d == 0) out.push_back(static_cast<int>(d));
  return out;
}

template <typename T>
std::vector<T> pinned_or(const std::optional<T>& pin, std::vector<T> all) {
  if (pin) return {*pin};
  return all;
}

}  // namespace

void SearchOptions::validate(const JobSpec& job, const ClusterSpec& cluster) const {
  const auto& a = job.architecture;
  auto s = [](long long v) { return std::to_string(v); };
  auto positive = [&](const std::optional<int>& v, const char* name) {
    if (v && *v < 1) throw InputError(std::string(name) + ": must be at least 1, got " + s(*v));
  };
  positive(pins.tp, "--tp");
  positive(pins.pp, "--pp");
  positive(pins.dp, "--dp");
  positive(pins.ep, "--ep");
  positive(pins.vpp, "--vpp");
  positive(pins.micro_batch, "--micro-batch");
  if (pins.zero_stage && (*pins.zero_stage < 0 || *pins.zero_stage > 3))
    throw InputError("--zero: " + s(*pins.zero_stage) + " is not a ZeRO stage; accepted: 0, 1, 2, 3");
  if (pins.tp && a.heads % *pins.tp != 0)
    throw InputError("--tp: heads " + s(a.heads) + " are not divisible by TP " + s(*pins.tp));
  if (pins.tp && cluster.gpus % *pins.tp != 0)
    throw InputError("--tp: " + s(cluster.gpus) + " GPUs are not divisible by TP " + s(*pins.tp));
  if (pins.pp && a.layers % *pins.pp != 0)
    throw InputError("--pp: layers " + s(a.layers) + " are not divisible by PP " + s(*pins.pp));
  const long long product = static_cast<long long>(pins.tp.value_or(1)) * pins.pp.value_or(1) * pins.dp.value_or(1);
  if (cluster.gpus % product != 0)
    throw InputError("--tp/--pp/--dp: their product " + s(product) + " does not divide the " + s(cluster.gpus) + " GPUs");
  if (pins.tp && pins.pp && pins.dp && product != cluster.gpus)
    throw InputError("--tp/--pp/--dp: TP·PP·DP = " + s(product) + " is not the " + s(cluster.gpus) + " GPUs");
  if (pins.dp && pins.micro_batch && job.global_batch % (static_cast<long long>(*pins.dp) * *pins.micro_batch) != 0)
    throw InputError("--global-batch: " + s(job.global_batch) + " is not divisible by micro-batch·DP = " +
                     s(static_cast<long long>(*pins.dp) * *pins.micro_batch));
  if (pins.micro_batch && job.global_batch % *pins.micro_batch != 0)
    throw InputError("--global-batch: " + s(job.global_batch) + " is not divisible by the micro-batch " +
                     s(*pins.micro_batch));
  if (pins.ep && !a.moe.enabled() && *pins.ep != 1) throw InputError("--ep: expert parallelism needs an MoE model");
  if (pins.sequence_parallel && *pins.sequence_parallel && pins.tp && *pins.tp == 1)
    throw InputError("--sequence-parallel: needs TP > 1");
  if (top_k < 1) throw InputError("--top: must be at least 1");
  if (max_tp && *max_tp < 1) throw InputError("--max-tp: must be at least 1");
}

SearchResult search_layouts(const JobSpec& job, const ClusterSpec& cluster, const SearchOptions& options) {
  cluster.validate();
  job.validate();
  options.validate(job, cluster);
  const auto& arch = job.architecture;
  const int n = cluster.gpus;
  const int max_tp = options.pins.tp ? *options.pins.tp : options.max_tp.value_or(cluster.gpus_per_node);

  SearchResult result;
  result.usable_memory_bytes = usable_memory_bytes(cluster.accelerator, options.memory);
  result.min_memory_bytes = INFINITY;
  std::vector<RankedLayout> fits;
  fits.reserve(1024);

  const std::vector<Recompute> recomputes =
      pinned_or(options.pins.recompute, {Recompute::kNone, Recompute::kSelective, Recompute::kFull});
  const std::vector<int> zeros = pinned_or(options.pins.zero_stage, {0, 1, 2, 3});

  for (int tp : pinned_or(options.pins.tp, divisors(n, max_tp))) {
    if (arch.heads % tp != 0) continue;
    for (int pp : pinned_or(options.pins.pp, divisors(n / tp, arch.layers))) {
      if ((n / tp) % pp != 0 || arch.layers % pp != 0) continue;
      const int dp = n / (tp * pp);
      if (options.pins.dp && *options.pins.dp != dp) continue;
      PrunedFamily family{tp, pp, "", INFINITY};
      bool any_valid = false, any_fit = false;
      std::string first_violation;
      const std::vector<int> eps =
          arch.moe.enabled() ? pinned_or(options.pins.ep, divisors(dp, arch.moe.experts)) : std::vector<int>{1};
      for (int ep : eps)
        for (int vpp : pinned_or(options.pins.vpp, divisors(arch.layers / pp, options.max_vpp)))
          for (int mb : pinned_or(options.pins.micro_batch, divisors(job.global_batch / dp, options.max_micro_batch)))
            for (int zero : zeros)
              for (Recompute rc : recomputes)
                for (bool sp : pinned_or<bool>(options.pins.sequence_parallel, {false, true})) {
                  if (sp && tp == 1) continue;
                  Layout l{tp, pp, dp, ep, vpp, mb, zero, rc, sp};
                  const std::string violation = layout_violation(l, job, cluster);
                  if (!violation.empty()) {
                    if (first_violation.empty()) first_violation = violation;
                    continue;
                  }
                  any_valid = true;
                  ++result.evaluated;
                  const MemoryBreakdown mem = estimate_memory(job, l);
                  const double bytes = mem.total_bytes();
                  family.min_memory_bytes = std::min(family.min_memory_bytes, bytes);
                  result.min_memory_bytes = std::min(result.min_memory_bytes, bytes);
                  if (bytes > result.usable_memory_bytes) continue;
                  any_fit = true;
                  fits.push_back({l, mem, estimate_step_time(job, cluster, l, options.time)});
                }
      if (!any_fit) {
        if (!any_valid) {
          family.reason = first_violation.empty() ? "no valid micro-batch for this DP" : first_violation;
          family.min_memory_bytes = 0;
        } else {
          family.reason = "needs " + gib(family.min_memory_bytes) + " GiB/GPU > " + gib(result.usable_memory_bytes) +
                          " GiB usable";
        }
        result.pruned.push_back(family);
      }
    }
  }
  if (!std::isfinite(result.min_memory_bytes)) result.min_memory_bytes = 0;
  if (fits.empty()) {
    if (result.evaluated == 0)
      throw InputError("no valid layout: " + (result.pruned.empty() ? std::string("no TP/PP divides the GPUs")
                                                                    : result.pruned.front().reason) +
                       " (check --global-batch, --tp, --pp, --dp, --micro-batch)");
    throw InfeasibleError("no layout fits in " + gib(result.usable_memory_bytes) + " GiB per " +
                          cluster.accelerator.name + ": the smallest needs " + gib(result.min_memory_bytes) +
                          " GiB/GPU; to fit, use more GPUs, ZeRO-3 (--zero 3), full recompute (--recompute full), or "
                          "an accelerator with more memory");
  }
  auto better = [&](const RankedLayout& a, const RankedLayout& b) {
    if (options.objective == Objective::kMemory) return a.memory.total_bytes() < b.memory.total_bytes();
    return a.time.step_time_s < b.time.step_time_s;
  };
  const size_t k = std::min<size_t>(static_cast<size_t>(options.top_k), fits.size());
  std::partial_sort(fits.begin(), fits.begin() + static_cast<long>(k), fits.end(), better);
  fits.resize(k);
  result.layouts = std::move(fits);
  return result;
}

}  // namespace isoflop::parallel
