// Structural checks of a layout and the trainers' runnability rules.
#include "parallel/trainer_rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "parallel/stages.hpp"
#include "parallel/time_model.hpp"

namespace isoflop::parallel {
namespace {

std::string s(long long v) { return std::to_string(v); }

// The violation of `rule`; its reason is put in words (by calling `reason`) only when they are asked for.
template <class Reason>
std::optional<RuleViolation> fail(Words words, const char* rule, Reason&& reason) {
  if (words == Words::kWithout) return RuleViolation{rule, {}};
  return RuleViolation{rule, reason()};
}

// Narrows `rule` (for the file `file`) when it still allows more than the file says, with the reason as its source.
template <class Narrow>
void narrow(catalog::TrainerRules& rules, const char* file, std::string_view rule, bool allows_more, Narrow&& apply,
            std::string source) {
  if (!allows_more) return;
  apply();
  rules.written_as = file;
  rules.narrowed_rules.emplace_back(rule);
  for (size_t i = 0; i < catalog::kTrainerRuleIds.size() && i < rules.rule_sources.size(); ++i)
    if (catalog::kTrainerRuleIds[i] == rule) rules.rule_sources[i] = std::move(source);
}

}  // namespace

catalog::TrainerRules as_written(catalog::TrainerRules rules) {
  auto& r = rules;
  // Megatron-LM's line says --grad-reduce-in-bf16; nemo.yaml (megatron_gpt_config.yaml) has no key for the
  // gradients' precision, and isoflop's ds_config.json states none (DeepSpeed's communication_data_type alone
  // does not move the accumulation to fp32 at every ZeRO stage).
  const auto default_precision_only = [&](const char* file) {
    narrow(
        r, file, "grad_reduce", true, [&] { r.grad_reduce_default_only = true; }, "");
  };
  if (r.name == kTrainerNames.name(Trainer::kDeepSpeed)) {
    narrow(
        r, "ds_config.json", "uneven_stages", r.uneven_stages, [&] { r.uneven_stages = false; },
        "isoflop's Megatron-DeepSpeed launch line has no option for the first and last stages' layers");
    default_precision_only("ds_config.json");
  } else if (r.name == kTrainerNames.name(Trainer::kNemo)) {
    narrow(
        r, "nemo.yaml", "uneven_stages", r.uneven_stages, [&] { r.uneven_stages = false; },
        "isoflop's nemo.yaml (megatron_gpt_config.yaml) has no key for the first and last stages' layers");
    const auto sharded = [](int stage) { return stage > 1; };
    narrow(
        r, "nemo.yaml", "zero_stages", std::any_of(r.zero_stages.begin(), r.zero_stages.end(), sharded),
        [&] { std::erase_if(r.zero_stages, sharded); },
        "isoflop's nemo.yaml shards at most the optimizer state (distributed_fused_adam); its FSDP is not written");
    default_precision_only("nemo.yaml");
  }
  return rules;
}

std::optional<std::string> grad_reduce_refusal(const catalog::TrainerRules& rules, catalog::GradReduce chosen) {
  if (!rules.grad_reduce_default_only || chosen == rules.defaults.grad_reduce) return std::nullopt;
  const std::string_view own = kGradReduceNames.name(rules.defaults.grad_reduce);
  return rules_holder(rules, "grad_reduce") + " states no gradient precision, so " + rules.name +
         " reduces gradients in " + std::string(own) + ", its default; accepted: " + std::string(own);
}

std::string rules_holder(const catalog::TrainerRules& rules, std::string_view rule) {
  const auto& n = rules.narrowed_rules;
  if (std::find(n.begin(), n.end(), rule) == n.end()) return rules.name;
  return "the " + rules.written_as + " isoflop writes for " + rules.name;
}

std::string zero_stage_refusal(const catalog::TrainerRules& t, int stage) {
  std::string stages;
  for (const int z : t.zero_stages) stages += (stages.empty() ? "" : ", ") + s(z);
  return rules_holder(t, "zero_stages") + " offers no ZeRO-" + s(stage) + " (its stages: " + stages + ")";
}

std::string zero3_tied_refusal(const catalog::TrainerRules& t, bool pinned) {
  std::string out = t.name + " runs ZeRO-3 only with untied embeddings, and this model's output layer shares the " +
                    "input embedding's weights";
  if (!pinned) return out;
  std::string stages;
  for (const int z : t.zero_stages)
    if (z != 3) stages += (stages.empty() ? "" : ", ") + s(z);
  return out + "; accepted: " + stages;
}

std::string missing_capability(const catalog::TrainerRules& t, std::string_view rule) {
  const std::string who = rules_holder(t, rule);
  if (rule == "tensor_parallel") return who + " has no tensor parallelism (TP must be 1)";
  if (rule == "sequence_parallel") return who + " has no sequence parallelism";
  if (rule == "pipeline") return who + " runs no pipeline schedule (PP must be 1)";
  if (rule == "interleaving") return who + " has no interleaved schedule (VPP must be 1)";
  if (rule == "context_parallel") return who + " has no context parallelism (CP must be 1)";
  if (rule == "expert_parallel") return who + " has no expert parallelism (EP must be 1)";
  throw std::logic_error("missing_capability: '" + std::string(rule) + "' is no form of parallelism");
}

int least_interleaved_pp(const catalog::TrainerRules& t) { return std::max(2, t.loaded() ? t.interleaving_min_pp : 2); }

std::optional<RuleViolation> structural_violation(const Layout& l, const JobSpec& job, const ClusterSpec& cluster,
                                                  Words words) {
  const auto& a = job.architecture;
  if (l.tp < 1 || l.pp < 1 || l.cp < 1 || l.dp < 1 || l.ep < 1 || l.vpp < 1 || l.micro_batch < 1)
    return fail(words, "degrees",
                [&] { return std::string("parallel degrees and the micro-batch must be at least 1"); });
  if (l.gpus() != cluster.gpus)
    return fail(words, "gpus", [&] {
      return std::string("TP·PP·CP·DP = " + s(l.tp) + "·" + s(l.pp) + "·" + s(l.cp) + "·" + s(l.dp) + " = " +
                         l.gpus_text() + " is not the " + s(cluster.gpus) + " GPUs");
    });
  if (a.heads % l.tp != 0)
    return fail(words, "heads",
                [&] { return std::string("heads " + s(a.heads) + " are not divisible by TP " + s(l.tp)); });
  if (a.effective_kv_heads() % l.tp != 0)
    return fail(words, "heads", [&] {
      return std::string("key/value heads " + s(a.effective_kv_heads()) + " are not divisible by TP " + s(l.tp));
    });
  if (l.pp == 1 && (l.first_stage_layers != 0 || l.last_stage_layers != 0))
    return fail(words, "stages",
                [&] { return std::string("first/last stage layers need pipeline parallelism (PP > 1)"); });
  if (l.first_stage_layers < 0 || l.last_stage_layers < 0)
    return fail(words, "stages",
                [&] { return std::string("first/last stage layers must be positive (0: an even split)"); });
  if (!stage_layers_consistent(a.layers, l)) {
    if (l.first_stage_layers == 0 && l.last_stage_layers == 0)
      return fail(words, "stages", [&] {
        return std::string("layers " + s(a.layers) + " are not divisible by PP·VPP = " + s(static_cast<long long>(l.pp) * l.vpp) +
                           " (give the first and last stages' layers for an uneven split)");
      });
    const StageLayers st = pipeline_stage_layers(a.layers, l);
    return fail(words, "stages", [&] {
      return std::string("first " + s(st.first) + " and last " + s(st.last) + " stage layers leave " +
                         s(a.layers - st.first - st.last) + " of " + s(a.layers) + " layers that " + s(l.pp - 2) +
                         " middle stages cannot split evenly into multiples of VPP " + s(l.vpp));
    });
  }
  if (job.global_batch % (static_cast<long long>(l.micro_batch) * l.dp) != 0)
    return fail(words, "batch", [&] {
      return std::string("global batch " + s(job.global_batch) +
                         " is not divisible by micro-batch·DP = " + s(static_cast<long long>(l.micro_batch) * l.dp));
    });
  if (l.vpp > 1 && (l.pp == 1 || l.micro_batches(job.global_batch) % l.pp != 0))
    return fail(words, "interleaving", [&] {
      return std::string("interleaving (VPP " + s(l.vpp) + ") needs PP > 1 and micro-batches " +
                         s(l.micro_batches(job.global_batch)) + " divisible by PP " + s(l.pp));
    });
  if (l.zero_stage < 0 || l.zero_stage > 3)
    return fail(words, "zero_stages", [&] { return std::string("ZeRO stage must be 0..3"); });
  if (l.sequence_parallel && l.tp == 1)
    return fail(words, "sequence_parallel", [&] { return std::string("sequence parallelism needs TP > 1"); });
  if (job.seq % l.cp != 0)
    return fail(words, "context_parallel",
                [&] { return std::string("sequence " + s(job.seq) + " is not divisible by CP " + s(l.cp)); });
  if (a.moe.enabled()) {
    if (a.moe.experts % l.ep != 0)
      return fail(words, "experts",
                  [&] { return std::string("experts " + s(a.moe.experts) + " are not divisible by EP " + s(l.ep)); });
    if (l.dp % l.ep != 0)
      return fail(words, "experts",
                  [&] { return std::string("DP " + s(l.dp) + " is not divisible by EP " + s(l.ep)); });
  } else if (l.ep != 1) {
    return fail(words, "experts", [&] { return std::string("expert parallelism needs an MoE model"); });
  }
  return std::nullopt;
}

std::optional<RuleViolation> trainer_violation(const catalog::TrainerRules& t, const Layout& l, const JobSpec& job,
                                               const ClusterSpec& cluster, const RuleContext& context, Words words) {
  const std::string& name = t.name;
  const auto& a = job.architecture;
  if (std::find(t.zero_stages.begin(), t.zero_stages.end(), l.zero_stage) == t.zero_stages.end()) {
    return fail(words, "zero_stages", [&] { return zero_stage_refusal(t, l.zero_stage); });
  }
  // Megatron-LM's validate_args refuses --use-torch-fsdp2 and expert parallelism in fp16 (the V100's precision).
  const bool fp16 = job.precision == MatmulPrecision::kFp16;
  if (fp16 && l.ep > 1 && t.expert_parallel && !t.expert_parallel_fp16)
    return fail(words, "expert_parallel", [&] { return name + " has no expert parallelism in fp16 (EP must be 1)"; });
  if (fp16 && !t.zero_stages_fp16.empty() &&
      std::find(t.zero_stages_fp16.begin(), t.zero_stages_fp16.end(), l.zero_stage) == t.zero_stages_fp16.end())
    return fail(words, "zero_stages", [&] {
      std::string stages;
      for (const int z : t.zero_stages_fp16) stages += (stages.empty() ? "" : ", ") + s(z);
      return name + " runs ZeRO-" + s(l.zero_stage) + " only in bf16 (its stages in fp16: " + stages + ")";
    });
  if (l.pp > 1 && !t.pipeline) return fail(words, "pipeline", [&] { return missing_capability(t, "pipeline"); });
  if (l.pp > 1 && l.zero_stage > t.max_zero_stage_with_pipeline)
    return fail(words, "zero_with_pipeline", [&] {
      return std::string(name + " runs ZeRO stage at most " + s(t.max_zero_stage_with_pipeline) +
                         " with pipeline parallelism, got ZeRO-" + s(l.zero_stage) + " with PP " + s(l.pp));
    });
  if (l.ep > 1 && !t.expert_parallel)
    return fail(words, "expert_parallel", [&] { return missing_capability(t, "expert_parallel"); });
  const bool experts_scope = t.zero_experts_scope_model ? a.moe.enabled() : l.ep > 1;
  if (experts_scope && l.zero_stage > t.max_zero_stage_with_experts)
    return fail(words, "zero_with_experts", [&] {
      return std::string(name + " runs ZeRO stage at most " + s(t.max_zero_stage_with_experts) + " with " +
                         (t.zero_experts_scope_model ? std::string("an MoE model") : "expert parallelism") +
                         ", got ZeRO-" + s(l.zero_stage));
    });
  // Megatron-LM's --use-torch-fsdp2 asserts untied embeddings (data/trainers.yaml zero3_tied_embeddings).
  if (l.zero_stage == 3 && a.tied_embeddings && !t.zero3_tied_embeddings)
    return fail(words, "zero3_tied_embeddings", [&] { return zero3_tied_refusal(t, false); });
  if (l.tp > 1 && !t.tensor_parallel)
    return fail(words, "tensor_parallel", [&] { return missing_capability(t, "tensor_parallel"); });
  if (t.tp_within_node && l.tp > cluster.gpus_per_node && !context.allow_tp_across_nodes)
    return fail(words, "tp_within_node", [&] {
      return std::string("TP " + s(l.tp) + " spans nodes of " + s(cluster.gpus_per_node) +
                         " GPUs (allow it by raising the largest TP tried)");
    });
  if (l.sequence_parallel && !t.sequence_parallel)
    return fail(words, "sequence_parallel", [&] { return missing_capability(t, "sequence_parallel"); });
  const StageLayers st = pipeline_stage_layers(a.layers, l);
  const bool uneven = l.pp > 1 && (st.first != st.last || (l.pp > 2 && st.first != st.middle));
  if (uneven && !t.uneven_stages)
    return fail(words, "uneven_stages", [&] {
      return rules_holder(t, "uneven_stages") + " has no layer counts for the first and last stages, so the layers " +
             "must divide " + "evenly over them; got first " + s(st.first) +
             (l.pp > 2 ? ", middle " + s(st.middle) : std::string()) + ", last " + s(st.last);
    });
  if (l.vpp > 1 && !t.interleaving)
    return fail(words, "interleaving", [&] { return missing_capability(t, "interleaving"); });
  if (l.vpp > 1 && l.pp < least_interleaved_pp(t))
    return fail(words, "interleaving", [&] {
      return std::string(name + "'s interleaved schedule needs PP >= " + s(least_interleaved_pp(t)) + ", got " +
                         s(l.pp));
    });
  if (l.cp > 1 && !t.context_parallel)
    return fail(words, "context_parallel", [&] { return missing_capability(t, "context_parallel"); });
  if (l.cp > 1 && job.seq % (static_cast<long long>(t.context_sequence_multiple) * l.cp) != 0)
    return fail(words, "context_parallel", [&] {
      return std::string(name + " needs the sequence " + s(job.seq) + " to be a multiple of " +
                         s(t.context_sequence_multiple) + "·CP = " + s(t.context_sequence_multiple * l.cp));
    });
  return std::nullopt;
}

std::optional<RuleViolation> runnability_violation(const catalog::TrainerRules& t, const Layout& l, const JobSpec& job,
                                                   const ClusterSpec& cluster, const RuleContext& context) {
  if (auto v = structural_violation(l, job, cluster)) return v;
  if (!t.loaded()) return std::nullopt;
  return trainer_violation(t, l, job, cluster, context);
}

}  // namespace isoflop::parallel
