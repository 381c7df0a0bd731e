// Dispatches emit and check over the targets, refusing what a trainer would reject.
#include "emit/emit.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "emit/targets.hpp"

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

EmittedFile render(Target target, const LaunchSpec& spec, const EmitOptions& options, const std::string& version) {
  switch (target) {
    case Target::kMegatron: return {file_name(target), target, emit_megatron(spec, version)};
    case Target::kDeepSpeed: return {file_name(target), target, emit_deepspeed(spec, version)};
    case Target::kNemo: return {file_name(target), target, emit_nemo(spec)};
    default: return {file_name(target), target, emit_slurm(spec, options.job_name, version)};
  }
}

}  // namespace

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
    EmittedFile f = render(t, spec, options, version);
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
  for (const auto& f : files)
    j["files"].push_back({{"file", f.name},
                          {"target", std::string(kTargetNames.name(f.target))},
                          {"bytes", f.content.size()},
                          {"hash", document_hash(f.content)}});
  return j.dump(2) + "\n";
}

}  // namespace isoflop::emit
