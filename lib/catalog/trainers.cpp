// Parsing trainers.yaml entries: every rule present, each with its source.
#include "catalog/trainers.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/suggest.hpp"
#include "model/architecture.hpp"

namespace isoflop::catalog {

bool TrainerPositions::spells(std::string_view encoding) const {
  return spelled.empty() || std::find(spelled.begin(), spelled.end(), encoding) != spelled.end();
}

std::string TrainerRules::rule_source(std::string_view rule) const {
  for (size_t i = 0; i < kTrainerRuleIds.size() && i < rule_sources.size(); ++i)
    if (kTrainerRuleIds[i] == rule) return rule_sources[i];
  return "";
}

TrainerRules parse_trainer(FieldReader& r) {
  TrainerRules t;
  t.name = r.string("name");
  t.display_name = r.string_or("display_name", t.name);
  t.version = r.string("version");
  t.source = r.string("source");
  t.file = r.where("name");
  const YAML::Node rules = r.child("rules");
  if (!rules.IsMap()) r.fail("rules", "must be a mapping of rule ids to their settings");
  FieldReader all(rules, r.file(), "rules of trainer '" + t.name + "'");
  for (const std::string_view id : kTrainerRuleIds) {
    const std::string key(id);
    if (!all.has(key)) all.fail(key, "missing rule '" + key + "'; every trainer lists " + join(std::vector<std::string>(kTrainerRuleIds.begin(), kTrainerRuleIds.end())));
    FieldReader rule(all.child(key), r.file(), "rule '" + key + "' of trainer '" + t.name + "'");
    if (id == "zero_stages") {
      const YAML::Node stages = rule.child("stages");
      if (!stages.IsSequence() || stages.size() == 0) rule.fail("stages", "must be a non-empty list of ZeRO stages 0..3");
      for (const auto& s : stages) {
        const int stage = s.as<int>();
        if (stage < 0 || stage > 3) rule.fail("stages", "ZeRO stages are 0..3, got " + std::to_string(stage));
        t.zero_stages.push_back(stage);
      }
      if (rule.has("fp16_stages")) {
        const YAML::Node fp16 = rule.child("fp16_stages");
        if (!fp16.IsSequence() || fp16.size() == 0)
          rule.fail("fp16_stages", "must be a non-empty list of the stages an fp16 job runs");
        for (const auto& s : fp16) {
          const int stage = s.as<int>();
          if (std::find(t.zero_stages.begin(), t.zero_stages.end(), stage) == t.zero_stages.end())
            rule.fail("fp16_stages", "ZeRO-" + std::to_string(stage) + " is not one of the trainer's stages");
          t.zero_stages_fp16.push_back(stage);
        }
      }
    } else if (id == "zero_with_pipeline") {
      t.max_zero_stage_with_pipeline = rule.int_in("max_stage", 0, 3);
    } else if (id == "zero_with_experts") {
      t.max_zero_stage_with_experts = rule.int_in("max_stage", 0, 3);
      const std::string scope = rule.string("scope");
      if (scope != "model" && scope != "expert_parallel") rule.fail("scope", "'" + scope + "' is not one of model|expert_parallel");
      t.zero_experts_scope_model = scope == "model";
    } else if (id == "tp_within_node") {
      t.tp_within_node = rule.boolean_or("enforced", true);
    } else if (id == "interleaving") {
      t.interleaving = rule.boolean_or("supported", false);
      t.interleaving_min_pp = rule.int_in("min_pp", 2, 1 << 20);
    } else if (id == "context_parallel") {
      t.context_parallel = rule.boolean_or("supported", false);
      t.context_sequence_multiple = rule.int_in("sequence_multiple", 1, 1 << 20);
    } else {
      bool* flag = id == "zero3_tied_embeddings" ? &t.zero3_tied_embeddings
                   : id == "tensor_parallel"     ? &t.tensor_parallel
                   : id == "sequence_parallel"   ? &t.sequence_parallel
                   : id == "pipeline"            ? &t.pipeline
                   : id == "uneven_stages"       ? &t.uneven_stages
                                                 : &t.expert_parallel;
      *flag = rule.boolean_or("supported", false);
      if (id == "expert_parallel") t.expert_parallel_fp16 = rule.boolean_or("fp16", true);
    }
    t.rule_sources.push_back(rule.string("source"));
    rule.finish();
  }
  all.finish();
  FieldReader d(r.child("defaults"), r.file(), "defaults of trainer '" + t.name + "'");
  t.defaults.overlap_grad_reduce = d.boolean_or("overlap_grad_reduce", false);
  t.defaults.overlap_param_gather = d.boolean_or("overlap_param_gather", false);
  t.defaults.tp_comm_overlap = d.boolean_or("tp_comm_overlap", false);
  const std::string reduce = d.string("grad_reduce");
  if (reduce != "fp32" && reduce != "bf16") d.fail("grad_reduce", "'" + reduce + "' is not one of fp32|bf16");
  t.defaults.grad_reduce = reduce == "fp32" ? GradReduce::kFp32 : GradReduce::kBf16;
  t.defaults.source = d.string("source");
  d.finish();
  if (const auto positions = r.optional_child("positional_encodings")) {
    FieldReader p(*positions, r.file(), "positional_encodings of trainer '" + t.name + "'");
    const YAML::Node spelled = p.child("spelled");
    const auto names = model::kPositionalEncodingNames.names();
    if (!spelled.IsSequence() || spelled.size() == 0)
      p.fail("spelled", "must be a non-empty list of positional encodings (" + join(names, "|") + ")");
    for (const auto& e : spelled) {
      const std::string name = e.IsScalar() ? e.Scalar() : std::string();
      if (std::find(names.begin(), names.end(), name) == names.end())
        p.fail("spelled", model::kPositionalEncodingNames.rejection(name));
      t.positions.spelled.push_back(name);
    }
    t.positions.source = p.string("source");
    p.finish();
  }
  const auto zero = [&](int stage) { return std::find(t.zero_stages.begin(), t.zero_stages.end(), stage) != t.zero_stages.end(); };
  if (!zero(0)) r.fail("rules", "zero_stages must include 0 (replicated data parallelism)");
  return t;
}

}  // namespace isoflop::catalog
