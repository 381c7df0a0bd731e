// Derives the launch spec from a plan: batch arithmetic, training length and the learning-rate schedule.
#include "emit/launch_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/bytes.hpp"
#include "core/error.hpp"
#include "parallel/memory_model.hpp"
#include "parallel/time_model.hpp"
#include "units/format.hpp"
#include "units/integer_limits.hpp"
#include "units/si.hpp"

namespace isoflop::emit {

Prediction prediction_of(const parallel::RankedLayout& best) {
  Prediction p;
  p.step_time_s = best.time.step_time_s;
  p.memory_gib = best.memory.total_bytes() / kGiB;
  p.mfu = best.time.mfu;
  return p;
}

std::optional<Prediction> predict(const LaunchSpec& s) {
  if (!(s.cluster.accelerator.gemm_efficiency_max > 0)) return std::nullopt;
  parallel::JobSpec job = s.job;
  job.architecture = s.arch;
  const parallel::ParameterSplit split = parallel::split_parameters(job.architecture);
  const parallel::MemoryBreakdown memory = parallel::estimate_memory(job, split, s.layout, s.search.memory);
  const parallel::TimeOptions time = parallel::with_trainer_defaults(s.search.time, s.search.trainer);
  return prediction_of({s.layout, memory, parallel::estimate_step_time(job, s.cluster, s.layout, split, memory, time)});
}

void restate_prediction(LaunchSpec& s, const LaunchSpec& before, Prediction p) {
  const double ratio = before.predicted.step_time_s > 0 ? p.step_time_s / before.predicted.step_time_s : 1.0;
  p.run_time_s = before.predicted.run_time_s * ratio;
  s.predicted = p;
  s.time_limit_s = p.run_time_s * (1.0 + s.data->time_margin_fraction);
}

std::string document_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;  // FNV-1a 64 prime
  }
  char out[32];
  std::snprintf(out, sizeof out, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return out;
}

double peak_learning_rate(const LaunchData& data, double params) {
  const auto& a = data.peak_lr;
  if (params <= a.front().params) return a.front().lr;
  if (params >= a.back().params) return a.back().lr;
  for (size_t i = 1; i < a.size(); ++i)
    if (params <= a[i].params) {
      const double t = std::log(params / a[i - 1].params) / std::log(a[i].params / a[i - 1].params);
      return std::exp(std::log(a[i - 1].lr) + t * std::log(a[i].lr / a[i - 1].lr));
    }
  return a.back().lr;
}

namespace {
std::string number_with_digits(double value, int digits) {
  char out[40];
  std::snprintf(out, sizeof out, "%.*g", digits, value);
  return out;
}
}  // namespace

std::string number(double value) {
  char out[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(out, sizeof out, "%.*g", precision, value);
    if (std::strtod(out, nullptr) == value) break;
  }
  return out;
}

std::string escaped(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
}

LaunchSpec make_launch_spec(const plan::PlanResult& plan, const LaunchData& data, const std::string& plan_hash,
                            const std::string& isoflop_version) {
  if (!plan.feasible() || plan.layouts.layouts.empty())
    throw FieldError("plan layout", "the plan has no layout that fits, so there is nothing to launch");
  const auto& best = plan.layouts.layouts.front();
  LaunchSpec s;
  s.data = &data;
  s.isoflop_version = isoflop_version;
  s.plan_hash = plan_hash;
  s.model_name = plan.job.architecture.name.empty() ? plan.family : plan.job.architecture.name;
  s.arch = plan.job.architecture;
  s.job = plan.job;
  // A plan document names its trainer once, in the search options whose rules its layouts satisfy.
  if (!plan.search.trainer.name.empty())
    s.job.trainer = parallel::kTrainerNames.parse(plan.search.trainer.name, "plan search trainer");
  s.seq = plan.job.seq;
  s.layout = best.layout;
  s.cluster = plan.cluster;
  s.search = plan.search;
  s.gpus = plan.cluster.gpus;
  s.gpus_per_node = plan.cluster.gpus_per_node;
  // Within one node the job starts a process per GPU it has (4 of an 8-GPU node); past one, whole nodes.
  if (s.gpus > 0 && s.gpus < s.gpus_per_node) s.gpus_per_node = s.gpus;
  if (s.gpus_per_node <= 0 || s.gpus % s.gpus_per_node != 0)
    throw FieldError("plan cluster", std::to_string(s.gpus) + " GPUs do not fill whole nodes of " +
                                         std::to_string(s.gpus_per_node));
  s.nodes = s.gpus / s.gpus_per_node;
  if (s.layout.gpus() != s.gpus)
    throw FieldError("plan layout", "TP·PP·CP·DP = " + s.layout.gpus_text() + " is not the cluster's " +
                                       std::to_string(s.gpus) + " GPUs");
  s.global_batch = plan.job.global_batch;
  const long long per_pass = static_cast<long long>(s.layout.micro_batch) * s.layout.dp;
  if (s.global_batch <= 0 || per_pass <= 0 || s.global_batch % per_pass != 0)
    throw FieldError("plan batch", std::to_string(s.global_batch) + " is not a multiple of micro-batch × DP = " +
                                             std::to_string(per_pass));
  s.grad_accum = s.global_batch / per_pass;
  // The plan's tokens: for a time budget what its layout runs in the time (the allocation's D within the plan's
  // tolerance), so that the run takes the days the plan says.
  s.tokens = plan.tokens > 0 ? plan.tokens : plan.allocation.tokens;
  if (!(s.tokens <= units::kMaxTrainingTokens))  // the sample and iteration counts are 64-bit integers
    throw FieldError("plan tokens", units::format_scientific(s.tokens) + " tokens are more than the " +
                                        units::format_scientific(units::kMaxTrainingTokens) +
                                        " a training run may have");
  s.train_samples = std::llround(s.tokens / static_cast<double>(s.seq));
  if (s.train_samples < s.global_batch)
    throw FieldError("plan tokens", "fewer tokens than one global batch");
  s.train_iters = (s.train_samples + s.global_batch - 1) / s.global_batch;

  Schedule& sch = s.schedule;
  // Three significant digits: a learning rate is tuned to no more, and the files read the same everywhere.
  const auto three_digits = [](double x) { return std::stod(number_with_digits(x, 3)); };
  sch.peak_lr = three_digits(peak_learning_rate(data, plan.allocation.params));
  sch.min_lr = three_digits(sch.peak_lr * data.min_lr_ratio);
  const double warmup_tokens = std::min(data.warmup_tokens, data.warmup_max_fraction * s.tokens);
  sch.warmup_iters = std::max(1LL, std::llround(warmup_tokens / static_cast<double>(s.seq * s.global_batch)));
  sch.warmup_samples = sch.warmup_iters * s.global_batch;  // whole iterations, so every trainer agrees
  sch.decay_samples = s.train_samples;
  sch.decay_iters = s.train_iters;

  s.predicted = prediction_of(best);
  s.predicted.run_time_s = plan.cost ? plan.cost->result.time_s : static_cast<double>(s.train_iters) * best.time.step_time_s;
  if (plan.budget.time_s) s.predicted.run_time_s = std::max(s.predicted.run_time_s, *plan.budget.time_s);
  s.time_limit_s = s.predicted.run_time_s * (1.0 + data.time_margin_fraction);
  return s;
}

std::string header_comment(const LaunchSpec& s, const std::string& trainer_version, const std::string& prefix) {
  char line[200];
  std::string out = prefix + "Written by isoflop " + s.isoflop_version + " from the plan " + s.plan_hash + "\n";
  out += prefix + "Model " + escaped(s.model_name) + "; target " + trainer_version + "\n";
  std::snprintf(line, sizeof line, "Predicted: step %.3f s, memory %.1f GiB per GPU, MFU %.1f%%; run %.2f days\n",
                s.predicted.step_time_s, s.predicted.memory_gib, 100.0 * s.predicted.mfu,
                s.predicted.run_time_s / units::kSecondsPerDay);
  out += prefix + line;
  std::snprintf(line, sizeof line, "Layout: TP %d, PP %d, CP %d, DP %d, EP %d on %d GPUs (%d nodes)\n", s.layout.tp,
                s.layout.pp, s.layout.cp, s.layout.dp, s.layout.ep, s.gpus, s.nodes);
  out += prefix + line;
  // One line a substitution (positions, biases).
  for (size_t begin = 0; begin < s.substitution.size();) {
    const size_t end = std::min(s.substitution.find('\n', begin), s.substitution.size());
    out += prefix + s.substitution.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  if (!s.relayout.empty()) out += prefix + s.relayout + "\n";
  return out;
}

int cpus_per_task(const LaunchSpec& s) {
  if (s.host_cpu_cores > 0 && s.host_gpus > 0)  // never more than the host has (more GPUs per node than its own)
    return std::clamp(static_cast<int>(static_cast<long long>(s.host_cpu_cores) * s.gpus_per_node / s.host_gpus), 1,
                      s.host_cpu_cores);
  return s.gpus_per_node * s.data->cpus_per_gpu;
}

}  // namespace isoflop::emit
