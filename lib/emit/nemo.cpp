// NeMo 1.x: overrides shaped like examples/nlp/language_modeling/conf/megatron_gpt_config.yaml (Hydra/OmegaConf),
// and the checks that the keys are the config's own (data/launch/nemo_keys.yaml) and the layout divides.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "catalog/field_reader.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "emit/argv.hpp"
#include "emit/targets.hpp"
#include "model/params.hpp"

namespace isoflop::emit {
namespace {

// Indented "key: value" lines, and the key path of each ("model.optim.sched.min_lr").
struct Yaml {
  std::string text;
  std::vector<std::string> paths, sections;
  void put(int depth, const std::string& key, const std::string& value = "") {
    text += std::string(2 * depth, ' ') + key + ":" + (value.empty() ? "" : " " + value) + "\n";
    sections.resize(static_cast<size_t>(depth));
    std::string path;
    for (const auto& s : sections) path += s + ".";
    paths.push_back(path + key);
    if (value.empty()) sections.push_back(key);
  }
};

// The releases that have the key path, or nullptr when no release listed does.
const std::vector<std::string>* releases_of(const LaunchData& data, const std::string& path) {
  const auto it = data.nemo_keys.find(path);
  return it == data.nemo_keys.end() ? nullptr : &it->second;
}

bool has_key(const LaunchData& data, const std::string& version, const std::string& path) {
  const auto* r = releases_of(data, path);
  return r && std::find(r->begin(), r->end(), version) != r->end();
}

std::string key_problem(const LaunchData& data, const std::string& version, const std::string& path) {
  const auto* r = releases_of(data, path);
  return path + " is not a key of NeMo " + version + "'s megatron_gpt_config.yaml" +
         (r ? " (" + join(*r, ", ") + " has it)" : "");
}

// The keys `version` has beside `path` (under the same parent), for "did you mean".
std::vector<std::string> sibling_keys(const LaunchData& data, const std::string& version, const std::string& path) {
  const size_t dot = path.rfind('.');
  const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot + 1);
  std::vector<std::string> out;
  for (const auto& [key, releases] : data.nemo_keys)
    if (key.size() > parent.size() && key.rfind(parent, 0) == 0 && key.find('.', parent.size()) == std::string::npos &&
        std::find(releases.begin(), releases.end(), version) != releases.end())
      out.push_back(key.substr(parent.size()));
  return out;
}

// The file's unknown key paths, one line for an unknown section however many keys it holds, with the key meant.
std::vector<std::string> unknown_key_problems(const LaunchData& data, const std::string& version,
                                              const std::vector<std::string>& paths) {
  std::vector<std::string> problems;
  std::string section;  // the last unknown path: the keys under it are not said again, only counted
  size_t under = 0;
  const auto close_section = [&] {
    if (under == 1) problems.back() += " (nor is the key under it)";
    if (under > 1) problems.back() += " (nor are the " + std::to_string(under) + " keys under it)";
    under = 0;
  };
  for (const auto& p : paths) {
    if (p == "defaults") continue;  // Hydra's defaults list (megatron_gpt_config.yaml has its own), not a key
    if (!section.empty() && p.size() > section.size() && p.rfind(section + ".", 0) == 0) {
      ++under;
      continue;
    }
    close_section();
    section.clear();
    if (has_key(data, version, p)) continue;
    const size_t dot = p.rfind('.');
    const std::string last = dot == std::string::npos ? p : p.substr(dot + 1);
    problems.push_back(key_problem(data, version, p) + did_you_mean(last, sibling_keys(data, version, p)));
    section = p;
  }
  close_section();
  return problems;
}

std::string str(long long v) { return std::to_string(v); }
std::string yes(bool b) { return b ? "true" : "false"; }

// The key paths under `node`; a key that is not a name (a list or a mapping as a key: "? [a]") is a problem at its
// line, and what is under it is not read.
void flatten(const YAML::Node& node, const std::string& prefix, std::vector<std::string>& out,
             std::vector<std::string>& problems) {
  for (const auto& item : node) {
    if (!item.first.IsScalar()) {
      problems.push_back("line " + std::to_string(item.first.Mark().line + 1) + ": " +
                         (prefix.empty() ? std::string("the top level") : prefix.substr(0, prefix.size() - 1)) +
                         " has a key that is not a name (a list, a mapping or null); NeMo's config keys are names");
      continue;
    }
    const std::string path = prefix + item.first.Scalar();
    out.push_back(path);
    if (item.second.IsMap()) flatten(item.second, path + ".", out, problems);
  }
}

// An OmegaConf interpolation (${.encoder_seq_length}, ${oc.env:NODES}): its value is known when NeMo runs.
bool interpolation(const YAML::Node& n) { return n.IsScalar() && n.Scalar().rfind("${", 0) == 0; }

// root[a][b], or an undefined node where root[a] is not a mapping (absent, a scalar): yaml-cpp throws when asked
// for a key of a section the file leaves out.
YAML::Node child_at(const YAML::Node& root, const char* a, const char* b) {
  const YAML::Node section = root.IsMap() ? root[a] : YAML::Node();
  return section && section.IsMap() ? section[b] : YAML::Node(YAML::NodeType::Undefined);
}

long long integer_at(const YAML::Node& root, const char* a, const char* b, long long fallback) {
  const YAML::Node n = child_at(root, a, b);
  if (!n || n.IsNull() || interpolation(n)) return fallback;
  return n.as<long long>();
}

// The counts the config states (GPUs, nodes, parallel sizes, shapes, batches): whole numbers of at least one
// (null where NeMo reads null as "none": virtual stages, query groups, experts). Lightning refuses devices 0 and
// Megatron a size below one; a count past a billion is no launch's, and would not fit the layout's integers.
std::vector<std::string> count_problems(const YAML::Node& root) {
  struct Count {
    const char* section;
    const char* key;
    bool null_allowed;
  };
  static constexpr Count kCounts[] = {
      {"trainer", "devices", false},
      {"trainer", "num_nodes", false},
      {"model", "micro_batch_size", false},
      {"model", "global_batch_size", false},
      {"model", "tensor_model_parallel_size", false},
      {"model", "pipeline_model_parallel_size", false},
      {"model", "virtual_pipeline_model_parallel_size", true},
      {"model", "context_parallel_size", false},
      {"model", "expert_model_parallel_size", false},
      {"model", "encoder_seq_length", false},
      {"model", "max_position_embeddings", false},
      {"model", "num_layers", false},
      {"model", "hidden_size", false},
      {"model", "ffn_hidden_size", false},
      {"model", "num_attention_heads", false},
      {"model", "num_query_groups", true},
      {"model", "kv_channels", true},
      {"model", "num_moe_experts", true},
      {"model", "moe_router_topk", false},
  };
  const std::string accepted = "1 to " + std::to_string(kLargestLiteral);  // no launch has a billion of anything
  std::vector<std::string> problems;
  for (const Count& c : kCounts) {
    const YAML::Node n = child_at(root, c.section, c.key);
    if (!n || (c.null_allowed && n.IsNull()) || interpolation(n)) continue;
    const std::string where = std::string(c.section) + "." + c.key;
    long long v = 0;
    // A quoted number ("1") is a string to OmegaConf, and NeMo's batch arithmetic fails on it.
    if (!n.IsScalar() || n.Tag() == "!" || !YAML::convert<long long>::decode(n, v)) {
      problems.push_back("line " + std::to_string(n.Mark().line + 1) + ": " + where +
                         (n.IsScalar() && n.Tag() == "!" ? " is quoted: a string to OmegaConf, not a number"
                                                         : " is not a whole number") +
                         "; accepted: " + (c.null_allowed ? "null or " : "") + accepted);
    } else if (v < 1 || v > kLargestLiteral) {
      problems.push_back("line " + std::to_string(n.Mark().line + 1) + ": " + where + " " + std::to_string(v) +
                         " is out of range; accepted: " + (c.null_allowed ? "null or " : "") + accepted);
    }
  }
  return problems;
}

// What the config states of the layout, the model, the batch and the cluster (megatron_gpt_config.yaml's keys); a
// batch key it leaves out is megatron_gpt_config.yaml's own, which NeMo then runs with.
LayoutFacts facts_of(const YAML::Node& root, const LaunchData& data) {
  const YAML::Node model = root["model"];
  auto i = [&](const char* key, long long fallback) { return static_cast<int>(integer_at(root, "model", key, fallback)); };
  LayoutFacts f;
  auto& l = f.layout;
  l.tp = i("tensor_model_parallel_size", 1);
  l.pp = i("pipeline_model_parallel_size", 1);
  l.vpp = i("virtual_pipeline_model_parallel_size", 1);
  l.cp = i("context_parallel_size", 1);
  l.ep = i("expert_model_parallel_size", 1);
  l.micro_batch = i("micro_batch_size", data.nemo_micro_batch_size);
  // With TP 1 NeMo logs a warning and switches sequence parallelism off (megatron_base_model.py): not refused.
  l.sequence_parallel = model["sequence_parallel"] && model["sequence_parallel"].as<bool>() && l.tp > 1;
  const YAML::Node optim = model["optim"];
  l.zero_stage = optim && optim["name"] && optim["name"].as<std::string>() == "distributed_fused_adam" ? 1 : 0;
  if (model["fsdp"] && model["fsdp"].as<bool>()) l.zero_stage = 3;
  f.cluster.gpus_per_node = static_cast<int>(integer_at(root, "trainer", "devices", 1));
  f.cluster.gpus = static_cast<int>(f.cluster.gpus_per_node * integer_at(root, "trainer", "num_nodes", 1));
  const long long model_parallel = static_cast<long long>(l.tp) * l.pp * l.cp;
  l.dp = static_cast<int>(std::max(1LL, model_parallel > 0 ? f.cluster.gpus / model_parallel : 1));
  auto& m = f.job.architecture;
  m.layers = i("num_layers", 0);
  m.heads = i("num_attention_heads", 0);
  m.kv_heads = i("num_query_groups", 0);
  m.moe.experts = i("num_moe_experts", 0);
  f.job.seq = i("encoder_seq_length", 0);
  f.job.global_batch = integer_at(root, "model", "global_batch_size", data.nemo_global_batch_size);
  return f;
}

}  // namespace

std::string emit_nemo(const LaunchSpec& s, const std::string& version) {
  const auto& m = s.arch;
  const auto& l = s.layout;
  if (l.zero_stage >= 2)
    throw FieldError("plan layout", std::to_string(l.zero_stage) +
                                                  " has no NeMo 1.x spelling here (distributed_fused_adam shards the "
                                                  "optimizer state, ZeRO-1); accepted: 0, 1");
  if (l.first_stage_layers > 0 || l.last_stage_layers > 0)
    throw FieldError("plan layout", "NeMo " + version +
                                        "'s config has no uneven "
                                        "pipeline stages; accepted: 0 (an even split)");
  if (m.positional == model::PositionalEncoding::kRelative || m.positional == model::PositionalEncoding::kNone)
    throw FieldError("plan architecture", "'" + std::string(model::kPositionalEncodingNames.name(m.positional)) +
                                              "' has no NeMo spelling; accepted: learned, rotary, alibi");
  if (m.activation == model::Activation::kRelu)
    throw FieldError("plan architecture", "'relu' has no NeMo spelling here; accepted: gelu, swiglu");
  // Top-1 routing needs the softmax before the choice (Megatron-Core raises without it from the commit NeMo v2.4.0
  // pins), and megatron_gpt_config.yaml has no key for it.
  if (m.moe.enabled() && m.moe.top_k == 1 && release_at_least(s.data->nemo_versions, version, "v2.4.0"))
    throw FieldError("plan architecture", "top-1 MoE routing has no NeMo " + version +
                                              " spelling (Megatron-Core wants moe_router_pre_softmax, which "
                                              "megatron_gpt_config.yaml does not have); accepted: top-k 2 or more, "
                                              "or the megatron target");
  if (m.moe.enabled() && m.moe.every > 1)
    throw FieldError("plan architecture", "MoE every " + std::to_string(m.moe.every) + " layers has no NeMo " +
                                              version + " key; accepted: every layer");
  Yaml y;
  y.text = header_comment(s, "NeMo " + version + " (megatron_gpt_config.yaml)", "# ");
  // Given as the primary config (--config-name), the file replaces megatron_gpt_config.yaml unless its defaults
  // list loads that first (Hydra's defaults list, _self_ last: these keys over it); Hydra finds it through the
  // search path given on the command line.
  y.text += "# Run megatron_gpt_pretraining.py " + long_option("config-path") + " /ABSOLUTE/DIR " +
            long_option("config-name") + " THIS_FILE " + kNemoSearchPath +
            ":\n# the defaults list loads megatron_gpt_config.yaml from there and "
            "sets the keys below over it.\n";
  y.text += "defaults:\n  - megatron_gpt_config\n  - _self_\n";
  y.put(0, "trainer");
  y.put(1, "devices", str(s.gpus_per_node));
  y.put(1, "num_nodes", str(s.nodes));
  // fp16 (with the native AMP grad scaler) on parts without bf16 tensor math.
  y.put(1, "precision", s.job.precision == parallel::MatmulPrecision::kFp16 ? "16-mixed" : "bf16-mixed");
  y.put(1, "max_steps", str(s.train_iters));
  y.put(1, "log_every_n_steps", str(s.data->log_interval));
  y.put(1, "val_check_interval", str(s.data->eval_interval));
  y.put(1, "limit_val_batches", str(s.data->eval_iters));
  y.put(1, "gradient_clip_val", number(s.data->clip_grad));
  y.put(0, "model");
  y.put(1, "mcore_gpt", "true");
  y.put(1, "micro_batch_size", str(l.micro_batch));
  y.put(1, "global_batch_size", str(s.global_batch));
  y.put(1, "tensor_model_parallel_size", str(l.tp));
  y.put(1, "pipeline_model_parallel_size", str(l.pp));
  y.put(1, "virtual_pipeline_model_parallel_size", l.vpp > 1 ? str(l.vpp) : "null");
  if (l.cp > 1) y.put(1, "context_parallel_size", str(l.cp));
  y.put(1, "sequence_parallel", yes(l.sequence_parallel && l.tp > 1));
  y.put(1, "encoder_seq_length", str(s.seq));
  y.put(1, "max_position_embeddings", str(s.seq));
  y.put(1, "num_layers", str(m.layers));
  y.put(1, "hidden_size", str(m.d_model));
  y.put(1, "ffn_hidden_size", str(model::mlp_hidden_size(m)));
  y.put(1, "num_attention_heads", str(m.heads));
  y.put(1, "num_query_groups", str(m.effective_kv_heads()));
  y.put(1, "kv_channels", str(m.effective_head_size()));
  y.put(1, "activation", m.activation == model::Activation::kSwiglu ? "fast-swiglu" : "gelu");
  y.put(1, "normalization", m.norm == model::NormKind::kRmsNorm ? "rmsnorm" : "layernorm");
  y.put(1, "bias", yes(m.bias));
  y.put(1, "position_embedding_type", m.positional == model::PositionalEncoding::kRotary  ? "rope"
                                      : m.positional == model::PositionalEncoding::kAlibi ? "alibi"
                                                                                          : "learned_absolute");
  y.put(1, "share_embeddings_and_output_weights", yes(m.tied_embeddings));
  y.put(1, "make_vocab_size_divisible_by", str(std::max(1, m.vocab_pad_multiple / std::max(1, l.tp))));
  y.put(1, "use_flash_attention", yes(s.job.attention == parallel::AttentionKernel::kFlash));
  const bool fp8 = s.job.precision == parallel::MatmulPrecision::kFp8;
  y.put(1, "transformer_engine", yes(fp8));
  y.put(1, "fp8", yes(fp8));
  if (l.recompute != model::Recompute::kNone) {
    const bool full = l.recompute == model::Recompute::kFull;
    y.put(1, "activations_checkpoint_granularity", full ? "full" : "selective");
    y.put(1, "activations_checkpoint_method", full ? "uniform" : "null");
    y.put(1, "activations_checkpoint_num_layers", full ? "1" : "null");
  }
  if (m.moe.enabled()) {
    y.put(1, "num_moe_experts", str(m.moe.experts));
    y.put(1, "moe_router_topk", str(m.moe.top_k));
    y.put(1, "expert_model_parallel_size", str(l.ep));
    // The capacity factor the plan's FLOPs and memory counted, with the dispatcher it needs, as megatron.sh states
    // them: Megatron-Core TransformerConfig fields that NeMo copies from the model config by name.
    if (release_at_least(s.data->nemo_versions, version, "v2.4.0")) {
      y.put(1, "moe_expert_capacity_factor", number(m.moe.capacity_factor));
      y.put(1, "moe_token_dispatcher_type", "alltoall");
    }
  }
  y.put(1, "optim");
  y.put(2, "name", l.zero_stage == 1 ? "distributed_fused_adam" : "fused_adam");
  y.put(2, "lr", number(s.schedule.peak_lr));
  y.put(2, "weight_decay", number(s.data->weight_decay));
  y.put(2, "betas", "[" + number(s.data->adam_beta1) + ", " + number(s.data->adam_beta2) + "]");
  // CosineAnnealing decays from the end of the warm-up to trainer.max_steps, the planned end.
  y.put(2, "sched");
  y.put(3, "name", "CosineAnnealing");
  y.put(3, "warmup_steps", str(s.schedule.warmup_iters));
  y.put(3, "constant_steps", "0");
  y.put(3, "min_lr", number(s.schedule.min_lr));
  for (const auto& path : y.paths)  // a key the release lacks: name the releases that have it
    if (!has_key(*s.data, version, path)) throw FieldError("target_version", key_problem(*s.data, version, path));
  return y.text;
}

std::vector<std::string> check_nemo(const std::string& yaml_text, const LaunchData& data, const std::string& version,
                                    const catalog::TrainerRules& rules) {
  YAML::Node root;
  try {
    root = catalog::load_one_document(yaml_text);
  } catch (const YAML::Exception& e) {
    return {"not YAML: line " + std::to_string(e.mark.line + 1) + ": " + e.msg};
  }
  if (!root.IsMap()) return {"a NeMo config is a mapping"};
  try {
    // A key twice (YAML loaders keep one silently), and aliases whose expansion never ends (a map inside itself).
    catalog::reject_duplicate_keys(root, "");
  } catch (const CatalogError& e) {
    // ":5: duplicate key …" or ": more than … values …" (no file name was given; the caller prefixes its own).
    const std::string what = e.what();
    if (what.size() > 1 && what[0] == ':' && std::isdigit(static_cast<unsigned char>(what[1])))
      return {"line " + what.substr(1)};
    return {what.rfind(": ", 0) == 0 ? what.substr(2) : what};
  }
  std::vector<std::string> problems, paths;
  std::vector<std::string> shape_problems;
  flatten(root, "", paths, shape_problems);
  problems = unknown_key_problems(data, version, paths);
  problems.insert(problems.begin(), shape_problems.begin(), shape_problems.end());
  if (auto counts = count_problems(root); !counts.empty()) {  // the rules below need the counts to be counts
    problems.insert(problems.end(), counts.begin(), counts.end());
    return problems;
  }
  try {
    const std::string precision = root["trainer"]["precision"] ? root["trainer"]["precision"].as<std::string>() : "32";
    const std::set<std::string> precisions = {"16", "bf16", "16-mixed", "bf16-mixed", "32"};
    if (!precisions.count(precision)) problems.push_back("trainer.precision '" + precision + "': accepted: 16, bf16, 16-mixed, bf16-mixed, 32");
    const YAML::Node sched = root["model"]["optim"]["sched"];
    if (sched && sched["min_lr"] && root["model"]["optim"]["lr"] &&
        sched["min_lr"].as<double>() > root["model"]["optim"]["lr"].as<double>())
      problems.push_back("model.optim.sched.min_lr must not exceed model.optim.lr");
    // The layout the file states, held to the trainer's runnability rules (the layout search's).
    for (auto& p : rule_problems(rules, facts_of(root, data))) problems.push_back(p);
  } catch (const YAML::Exception& e) {
    problems.push_back("line " + std::to_string(e.mark.line + 1) + ": a value has the wrong type");
  }
  return problems;
}

std::vector<std::string> nemo_warnings(const std::string& yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception&) {
    return {};  // check_nemo says what is wrong with it
  }
  if (!root.IsMap()) return {};
  // Given as --config-name, the file is Hydra's primary config: only a defaults list that loads
  // megatron_gpt_config before _self_ puts its keys over NeMo's; without one Hydra runs the file alone.
  const YAML::Node defaults = root["defaults"];
  int base = -1, self = -1, k = 0;
  if (defaults && defaults.IsSequence())
    for (const auto& entry : defaults) {
      const std::string name = entry.IsScalar() ? entry.Scalar() : "";
      if (name == "megatron_gpt_config" && base < 0) base = k;
      if (name == "_self_" && self < 0) self = k;
      ++k;
    }
  if (base < 0)
    return {
        "no defaults list loads megatron_gpt_config: given as --config-name, Hydra runs this file alone, "
        "without the keys it leaves to megatron_gpt_config.yaml (defaults: [megatron_gpt_config, _self_])"};
  if (self >= 0 && self < base)
    return {
        "_self_ comes before megatron_gpt_config in the defaults list: megatron_gpt_config.yaml's keys would "
        "override this file's (defaults: [megatron_gpt_config, _self_])"};
  return {};
}

}  // namespace isoflop::emit
