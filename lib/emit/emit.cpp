// Dispatches emit and check over the targets, refusing what a trainer would reject.
#include "emit/emit.hpp"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "emit/targets.hpp"
#include "model/params.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::emit {
namespace {

std::string version_or_default(const LaunchData& data, const std::string& version) {
  if (version.empty()) return data.default_megatron_version();
  if (std::find(data.megatron_versions.begin(), data.megatron_versions.end(), version) == data.megatron_versions.end())
    throw FieldError("target_version", "'" + version + "' is not one of " + join(data.megatron_versions, "|"));
  return version;
}

const char* file_name(Target target) {
  switch (target) {
    case Target::kMegatron: return "megatron.sh";
    case Target::kDeepSpeed: return "ds_config.json";
    case Target::kNemo: return "nemo.yaml";
    default: return "job.sbatch";
  }
}

std::vector<Target> targets_of(Target target) {
  if (target == Target::kAll) return {Target::kMegatron, Target::kDeepSpeed, Target::kNemo, Target::kSlurm};
  return {target};
}

// The positional encodings each trainer spells: Megatron-LM's --position-embedding-type (learned_absolute, rope,
// none; Megatron-DeepSpeed and the SLURM script run pretrain_gpt.py too) and NeMo's position_embedding_type
// (learned_absolute, rope, alibi). A ds_config.json says nothing of positions; its Megatron-DeepSpeed launch
// line (PP > 1) does.
bool spells(Target target, const LaunchSpec& s, model::PositionalEncoding p) {
  using model::PositionalEncoding;
  const bool nemo = target == Target::kNemo || (target == Target::kSlurm && s.job.trainer == parallel::Trainer::kNemo);
  if (target == Target::kDeepSpeed && s.layout.pp == 1) return true;
  if (nemo) return p != PositionalEncoding::kRelative && p != PositionalEncoding::kNone;
  return p != PositionalEncoding::kAlibi && p != PositionalEncoding::kRelative;
}

// The spec `target` renders: the plan's, or with RoPE (which every target spells) for an encoding the trainer
// cannot spell. The layout stays the plan's; the line says what changed, parameters included (Transformer-XL
// relative positions add a projection per layer, model/params.cpp).
LaunchSpec for_target(Target target, const LaunchSpec& spec, const EmitOptions& options) {
  const auto p = spec.arch.positional;
  if (spells(target, spec, p) || !options.substitute) return spec;
  LaunchSpec s = spec;
  s.arch.positional = model::PositionalEncoding::kRotary;
  const double before = model::count_params(spec.arch).total(), after = model::count_params(s.arch).total();
  char line[240];
  std::snprintf(line, sizeof line,
                "positional encoding '%s' has no %s spelling: runs 'rotary' instead (parameters %.4g -> %.4g, "
                "layout unchanged)",
                std::string(model::kPositionalEncodingNames.name(p)).c_str(),
                std::string(kTargetNames.name(target)).c_str(), before, after);
  s.substitution = line;
  return s;
}

EmittedFile render(Target target, const LaunchSpec& spec, const EmitOptions& options, const std::string& version) {
  switch (target) {
    case Target::kMegatron: return {file_name(target), target, emit_megatron(spec, version), {}};
    case Target::kDeepSpeed: return {file_name(target), target, emit_deepspeed(spec, version), {}};
    case Target::kNemo: return {file_name(target), target, emit_nemo(spec), {}};
    default: return {file_name(target), target, emit_slurm(spec, options.job_name, version), {}};
  }
}

}  // namespace

void require_runnable(const plan::PlanResult& plan, const catalog::TrainerRules& trainer) {
  if (plan.layouts.layouts.empty()) return;
  const auto v = parallel::runnability_violation(trainer, plan.layouts.layouts.front().layout, plan.job, plan.cluster);
  if (v) throw FieldError("plan layout", "rule '" + v->rule + "': " + v->reason);
}

std::vector<std::string> file_names(Target target) {
  std::vector<std::string> names;
  for (Target t : targets_of(target)) names.emplace_back(file_name(t));
  names.emplace_back(kManifestName);
  return names;
}

std::vector<std::string> check_config(Target target, const std::string& text, const LaunchData& data,
                                      const std::string& megatron_version) {
  const std::string version = version_or_default(data, megatron_version);
  switch (target) {
    case Target::kMegatron: return check_megatron(text, data, version);
    case Target::kDeepSpeed: return check_deepspeed(text);
    case Target::kNemo: return check_nemo(text, data);
    case Target::kSlurm: {
      auto problems = check_slurm(text);
      // A script that runs Megatron-LM's pretrain_gpt.py is also checked as Megatron-LM checks its arguments.
      if (text.find("$MEGATRON_LM/pretrain_gpt.py") != std::string::npos)
        for (auto& p : check_megatron(text, data, version)) problems.push_back(p);
      return problems;
    }
    default: throw FieldError("target", "'all' names no one file; accepted: megatron|deepspeed|nemo|slurm");
  }
}

std::vector<EmittedFile> emit_files(Target target, const LaunchSpec& spec, const EmitOptions& options) {
  const std::string version = version_or_default(*spec.data, options.megatron_version);
  std::vector<EmittedFile> files;
  for (Target t : targets_of(target)) {
    const LaunchSpec target_spec = for_target(t, spec, options);
    EmittedFile f = render(t, target_spec, options, version);
    f.substitution = target_spec.substitution;
    const auto problems = check_config(t, f.content, *spec.data, version);
    if (!problems.empty())
      throw FieldError("plan layout", std::string(kTargetNames.name(t)) + " would reject this plan: " +
                                         join(problems, "; "));
    files.push_back(std::move(f));
  }
  return files;
}

std::string manifest(const std::vector<EmittedFile>& files, const LaunchSpec& spec) {
  nlohmann::ordered_json j;
  j["isoflop_version"] = spec.isoflop_version;
  j["plan"] = spec.plan_hash;
  j["files"] = nlohmann::ordered_json::array();
  for (const auto& f : files) {
    nlohmann::ordered_json entry = {{"file", f.name},
                                    {"target", std::string(kTargetNames.name(f.target))},
                                    {"bytes", f.content.size()},
                                    {"hash", document_hash(f.content)}};
    if (!f.substitution.empty()) entry["substitution"] = f.substitution;
    j["files"].push_back(entry);
  }
  return j.dump(2) + "\n";
}

}  // namespace isoflop::emit
