// Dispatches emit and check over the targets, refusing what a trainer would reject.
#include "emit/emit.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "core/error.hpp"
#include "emit/targets.hpp"
#include "model/params.hpp"
#include "parallel/trainer_rules.hpp"
#include "units/format.hpp"

namespace isoflop::emit {
namespace {

// The releases a target is written for: the asked one where the target's trainer has it, else the newest listed.
struct Versions {
  std::string megatron, nemo;
};

// `asked` is one release or, for all and slurm (which write both trainers' files), a Megatron-LM and a NeMo
// release separated by a comma ("core_v0.8.0,v1.23.0"); each trainer not named gets its newest.
Versions versions_for(Target target, const LaunchData& d, const std::string& asked) {
  Versions v{d.default_megatron_version(), d.default_nemo_version()};
  if (asked.empty()) return v;
  const std::string megatron_list = join(d.megatron_versions, "|"), nemo_list = join(d.nemo_versions, "|");
  if (target == Target::kDeepSpeed)
    throw FieldError("target_version", "DeepSpeed is written for " + d.deepspeed_version +
                                           " only; a release is "
                                           "named for megatron (" +
                                           megatron_list + ") or nemo (" + nemo_list + ")");
  bool megatron = false, nemo = false;
  size_t begin = 0;
  while (begin <= asked.size()) {
    const size_t comma = std::min(asked.find(',', begin), asked.size());
    const std::string one = asked.substr(begin, comma - begin);
    begin = comma + 1;
    bool* named = listed(d.megatron_versions, one) ? &megatron : listed(d.nemo_versions, one) ? &nemo : nullptr;
    std::string* version = named == &megatron ? &v.megatron : &v.nemo;
    if (target == Target::kMegatron && named != &megatron)
      throw FieldError("target_version", "'" + one + "' is not one of " + megatron_list + " (Megatron-LM)");
    if (target == Target::kNemo && named != &nemo)
      throw FieldError("target_version", "'" + one + "' is not one of " + nemo_list + " (NeMo)");
    if (!named)
      throw FieldError("target_version", "'" + one + "' is not one of " + megatron_list + " (Megatron-LM) or " +
                                             nemo_list + " (NeMo); name one of each with a comma");
    if (*named)
      throw FieldError("target_version", "'" + asked + "' names two " + (named == &megatron ? "Megatron-LM" : "NeMo") +
                                             " releases; accepted: at most one of each");
    *named = true;
    *version = one;
  }
  return v;
}

// The trainer whose rules a target's file is held to: its own, or for SLURM the plan's.
std::string trainer_of(Target target, const LaunchSpec& spec) {
  switch (target) {
    case Target::kMegatron: return "megatron";
    case Target::kDeepSpeed: return "deepspeed";
    case Target::kNemo: return "nemo";
    default:
      // The plan's trainer, or Megatron-LM for FSDP, which has no launch line isoflop writes.
      return spec.job.trainer == parallel::Trainer::kFsdp ? "megatron"
                                                          : std::string(parallel::kTrainerNames.name(spec.job.trainer));
  }
}

const catalog::Catalog& catalog_of(const EmitOptions& options) {
  if (!options.catalog) throw std::logic_error("emit: EmitOptions.catalog is required (the trainers' rules)");
  return *options.catalog;
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

// The positional encodings each trainer spells, as data/trainers.yaml positional_encodings lists them (the plan
// shapes with the same list): Megatron-LM's position-embedding-type (learned_absolute, rope, none;
// Megatron-DeepSpeed and the SLURM script run pretrain_gpt.py too) and NeMo's position_embedding_type
// (learned_absolute, rope, alibi). A ds_config.json says nothing of positions; its Megatron-DeepSpeed launch
// line (PP > 1) does. A trainer entry without the list (an overlay's) spells what the launch format does.
bool spells(Target target, const LaunchSpec& s, model::PositionalEncoding p, const catalog::Catalog& catalog) {
  using model::PositionalEncoding;
  if (target == Target::kDeepSpeed && s.layout.pp == 1) return true;
  const std::string trainer = trainer_of(target, s);
  if (const auto& listed = catalog.trainer(trainer).positions; !listed.spelled.empty())
    return listed.spells(model::kPositionalEncodingNames.name(p));
  if (trainer == "nemo") return p != PositionalEncoding::kRelative && p != PositionalEncoding::kNone;
  return p != PositionalEncoding::kAlibi && p != PositionalEncoding::kRelative;
}

// The spec `target` renders: the plan's, or with RoPE (which every target spells) for an encoding the trainer
// cannot spell. The layout stays the plan's; the model's parameters and FLOPs change (Transformer-XL relative
// positions add a projection per layer, model/params.cpp), so the prediction the file states is recounted for
// the model it runs, and the line says what changed.
LaunchSpec with_positions_spelled(Target target, const LaunchSpec& spec, const EmitOptions& options) {
  const auto p = spec.arch.positional;
  if (spells(target, spec, p, catalog_of(options)) || !options.substitute) return spec;
  LaunchSpec s = spec;
  s.arch.positional = model::PositionalEncoding::kRotary;
  s.job.architecture = s.arch;
  const double before = model::count_params(spec.arch).total(), after = model::count_params(s.arch).total();
  if (const auto recounted = predict(s)) restate_prediction(s, spec, *recounted);
  char line[320];
  std::snprintf(line, sizeof line,
                "positional encoding '%s' has no %s spelling: runs 'rotary' instead (parameters %.4g -> %.4g, "
                "step %.3f -> %.3f s, layout unchanged; the prediction above is the rotary model's)",
                std::string(model::kPositionalEncodingNames.name(p)).c_str(),
                std::string(kTargetNames.name(target)).c_str(), before, after, spec.predicted.step_time_s,
                s.predicted.step_time_s);
  s.substitution = line;
  return s;
}

// Whether the target's Megatron-Core refuses biases in an MoE model: TransformerConfig asserts "Bias is not
// supported for MoE" from core_v0.13.0, which NeMo v2.4.0 pins (requirements/manifest.json, commit 03f7793).
bool refuses_moe_bias(Target target, const LaunchSpec& s, const LaunchData& d, const Versions& v) {
  if (!s.arch.moe.enabled() || !s.arch.bias) return false;
  const std::string trainer = trainer_of(target, s);
  if (trainer == "nemo") return release_at_least(d.nemo_versions, v.nemo, "v2.4.0");
  // Megatron-DeepSpeed's own MoE layers take biases (its ds_config and the SLURM job that launches it alike).
  if (trainer == "deepspeed") return false;
  return release_at_least(d.megatron_versions, v.megatron, "core_v0.13.0");
}

// The spec `target` renders: with positions it spells (with_positions_spelled), and an MoE model's biases dropped
// where its Megatron-Core has none (the linear layers' biases: a few parameters a layer, said with the counts).
LaunchSpec for_target(Target target, const LaunchSpec& spec, const EmitOptions& options, const Versions& v) {
  LaunchSpec s = with_positions_spelled(target, spec, options);
  if (!refuses_moe_bias(target, s, *s.data, v)) return s;
  const std::string release = trainer_of(target, s) == "nemo" ? "NeMo " + v.nemo : "Megatron-LM " + v.megatron;
  if (!options.substitute)
    throw FieldError("plan architecture", "an MoE model with biases has no " + release +
                                              " spelling (Megatron-Core asserts 'Bias is not supported for MoE'); "
                                              "accepted: an MoE model without biases, or a dense one");
  const LaunchSpec before = s;
  s.arch.bias = false;
  s.job.architecture = s.arch;
  if (const auto recounted = predict(s)) restate_prediction(s, before, *recounted);
  char line[320];
  std::snprintf(line, sizeof line,
                "biases: %s has none in an MoE model (Megatron-Core asserts it): runs without (parameters %.7g -> "
                "%.7g, step %.3f -> %.3f s, layout unchanged; the prediction above is that model's)",
                release.c_str(), model::count_params(before.arch).total(), model::count_params(s.arch).total(),
                before.predicted.step_time_s, s.predicted.step_time_s);
  s.substitution += (s.substitution.empty() ? "" : "\n") + std::string(line);
  return s;
}

EmittedFile render(Target target, const LaunchSpec& spec, const EmitOptions& options, const Versions& v) {
  switch (target) {
    case Target::kMegatron: return {file_name(target), target, emit_megatron(spec, v.megatron), {}, {}};
    case Target::kDeepSpeed: return {file_name(target), target, emit_deepspeed(spec, v.megatron), {}, {}};
    case Target::kNemo: return {file_name(target), target, emit_nemo(spec, v.nemo), {}, {}};
    default: return {file_name(target), target, emit_slurm(spec, options.job_name, v.megatron), {}, {}};
  }
}

}  // namespace

std::vector<std::string> file_names(Target target) {
  std::vector<std::string> names;
  for (Target t : targets_of(target)) names.emplace_back(file_name(t));
  names.emplace_back(kManifestName);
  return names;
}

namespace {

// check_config at releases already chosen (emit all chooses them once for its four files).
std::vector<std::string> check_config_at(Target target, const std::string& text, const LaunchData& data,
                                         const Versions& v, const catalog::Catalog& catalog) {
  switch (target) {
    case Target::kMegatron:
      return check_megatron(text, data, v.megatron, catalog.trainer("megatron"));
    case Target::kDeepSpeed: return check_deepspeed(text, data, catalog.trainer("deepspeed"));
    case Target::kNemo: return check_nemo(text, data, v.nemo, catalog.trainer("nemo"));
    case Target::kSlurm: {
      auto problems = check_slurm(text);
      // A script that runs Megatron-LM's pretrain_gpt.py is also checked as Megatron-LM checks its arguments.
      if (text.find("$MEGATRON_LM/pretrain_gpt.py") != std::string::npos)
        for (auto& p : check_megatron(text, data, v.megatron, catalog.trainer("megatron"))) problems.push_back(p);
      return problems;
    }
    default: throw FieldError("target", "'all' names no one file; accepted: megatron|deepspeed|nemo|slurm");
  }
}

}  // namespace

std::vector<std::string> check_config(Target target, const std::string& text, const LaunchData& data,
                                      const EmitOptions& options) {
  const Versions v = versions_for(target == Target::kDeepSpeed ? Target::kAll : target, data, options.target_version);
  return check_config_at(target, text, data, v, catalog_of(options));
}

std::optional<Target> form_of(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::nullopt;
  if (text[first] == '{') return Target::kDeepSpeed;
  if (text.find("\n#SBATCH") != std::string::npos) return Target::kSlurm;
  if (text.compare(first, 2, "#!") == 0 || text.find("pretrain_gpt.py") != std::string::npos) return Target::kMegatron;
  try {
    if (YAML::Load(text).IsMap()) return Target::kNemo;
  } catch (const YAML::Exception&) {
  }
  return std::nullopt;
}

std::string form_name(Target target) {
  switch (target) {
    case Target::kMegatron: return "a shell script running pretrain_gpt.py (megatron)";
    case Target::kDeepSpeed: return "a ds_config JSON object (deepspeed)";
    case Target::kNemo: return "a NeMo YAML mapping (nemo)";
    case Target::kSlurm: return "an sbatch script with #SBATCH lines (slurm)";
    default: return "four files";
  }
}

CheckReport check_file(const std::string& name, std::optional<Target> target, const std::string& text,
                       const EmitOptions& options) {
  // The manifest emit writes beside the files (manifest()): isoflop's list of them, not a launch file.
  if (const auto doc = nlohmann::json::parse(text, nullptr, false);
      doc.is_object() && doc.contains("isoflop_version") && doc.contains("files") && doc.contains("plan"))
    throw InputError(name +
                     ": emit's manifest (the files written and their hashes), not a launch file; --check "
                     "reads " +
                     form_name(Target::kDeepSpeed) + ", " + form_name(Target::kNemo) +
                     " or a shell or sbatch script, such as the files it lists");
  const std::optional<Target> form = form_of(text);
  CheckReport report{target.value_or(form.value_or(Target::kAll)), !target, {}, {}};
  if (!form && !target)
    throw FieldError("target", name + " has no form isoflop reads (" + form_name(Target::kDeepSpeed) + ", " +
                                   form_name(Target::kNemo) + ", a shell or sbatch script); name the target: "
                                   "megatron|deepspeed|nemo|slurm");
  // An sbatch script that runs pretrain_gpt.py is a Megatron-LM launch too.
  const bool fits = form == report.target || (report.target == Target::kMegatron && form == Target::kSlurm);
  if (!fits)
    throw InputError(name + ": target " + std::string(kTargetNames.name(report.target)) + " reads " +
                     form_name(report.target) + "; found " + (form ? form_name(*form) : "none of the forms isoflop reads"));
  report.problems = check_config(report.target, text, launch_data(), options);
  if (report.target == Target::kDeepSpeed) report.warnings = deepspeed_warnings(text, launch_data());
  if (report.target == Target::kNemo) report.warnings = nemo_warnings(text);
  return report;
}

namespace {

// One target's file, checked as its trainer checks it. Throws FieldError("plan layout") when the trainer refuses
// the plan and no layout of its own fits, or the file would be rejected.
EmittedFile emit_one(Target t, const LaunchSpec& spec, const EmitOptions& options, const Versions& versions,
                     const catalog::Catalog& catalog) {
  const std::string own(parallel::kTrainerNames.name(spec.job.trainer));
  const LaunchSpec runnable = under_rules(spec, catalog.trainer(trainer_of(t, spec)), catalog.trainer(own));
  const LaunchSpec target_spec = for_target(t, runnable, options, versions);
  if (options.min_mfu > 0 && target_spec.predicted.mfu < options.min_mfu)
    throw InfeasibleError(std::string(kTargetNames.name(t)) + ": " +
                          (target_spec.relayout.empty()
                               ? "the plan's layout with " + std::string(kTargetNames.name(t)) + "'s settings"
                               : target_spec.relayout) +
                          "; that runs at MFU " + units::format_significant(100 * target_spec.predicted.mfu, 3) +
                          " %, under the plan's floor of " + units::format_significant(100 * options.min_mfu, 3) +
                          " %, so no launch file is written");
  EmittedFile f = render(t, target_spec, options, versions);
  f.substitution = target_spec.substitution;
  f.relayout = target_spec.relayout;
  const auto problems = check_config_at(t, f.content, *spec.data, versions, catalog);
  if (!problems.empty())
    throw FieldError("plan layout",
                     std::string(kTargetNames.name(t)) + " would reject this plan: " + join(problems, "; "));
  return f;
}

}  // namespace

std::vector<EmittedFile> emit_files(Target target, const LaunchSpec& spec, const EmitOptions& options) {
  const Versions versions = versions_for(target, *spec.data, options.target_version);
  const catalog::Catalog& catalog = catalog_of(options);
  std::vector<EmittedFile> files;
  std::optional<FieldError> first_refusal;  // `all`: the first target that cannot be written
  std::vector<std::string> writable;
  for (Target t : targets_of(target)) {
    try {
      files.push_back(emit_one(t, spec, options, versions, catalog));
      writable.emplace_back(kTargetNames.name(t));
    } catch (const FieldError& e) {
      if (target != Target::kAll) throw;
      if (!first_refusal) first_refusal = e;
    }
  }
  // `all` writes its four files or none; the refusal names the targets that can be written on their own.
  if (first_refusal)
    throw FieldError(first_refusal->field(),
                     first_refusal->message() + "; emit all writes all four files or none" +
                         (writable.empty() ? std::string(", and no target can be written for this plan")
                                           : ": " + join(writable, ", ") + " can be written alone (emit " +
                                                 join(writable, "|") + " with the same plan)"));
  return files;
}

std::string manifest(const std::vector<EmittedFile>& files, const LaunchSpec& spec,
                     const std::vector<nlohmann::ordered_json>& kept) {
  nlohmann::ordered_json j;
  j["isoflop_version"] = spec.isoflop_version;
  j["plan"] = spec.plan_hash;
  if (!spec.layout_options.empty()) j["layout_options"] = spec.layout_options;  // the plan ranked again with them
  j["files"] = nlohmann::ordered_json::array();
  for (const auto& entry : kept) j["files"].push_back(entry);
  for (const auto& f : files) {
    nlohmann::ordered_json entry = {{"file", f.name},
                                    {"target", std::string(kTargetNames.name(f.target))},
                                    {"bytes", f.content.size()},
                                    {"hash", document_hash(f.content)}};
    if (!f.substitution.empty()) entry["substitution"] = f.substitution;
    if (!f.relayout.empty()) entry["relayout"] = f.relayout;
    j["files"].push_back(entry);
  }
  return j.dump(2) + "\n";
}

}  // namespace isoflop::emit
