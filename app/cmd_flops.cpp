// isoflop flops: parameters and FLOPs of a model and a workload, by counting convention.
#include "app/arch_input.hpp"
#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/params.hpp"
#include "parallel/layout.hpp"
#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::app {
namespace {

using report::Json;

const CommandHelp kHelp = {
    "flops",
    "isoflop flops (--arch NAME|FILE | --params N) (--tokens D | --global-batch B [--seq S]) [options]",
    "Counts a model's parameters by component and the FLOPs of a workload under a named convention:\n"
    "6nd (6·N·D), chinchilla (Hoffmann et al. 2022 App. F, per operation, backward = 2 × forward) or\n"
    "megatron (Narayanan et al. 2021 eq. 3 hardware FLOPs with the recompute forward, and Korthikanti et al.\n"
    "2022 eq. 7 model FLOPs / eq. 8 with selective recompute). With --global-batch the workload is one\n"
    "iteration; with --tokens, the whole run.",
    {"isoflop flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron",
     "isoflop flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla",
     "isoflop flops --params 70B --tokens 1.4T                 # 6ND: 5.88e23",
     "isoflop flops --arch gpt3-175b --tokens 300B -o json"}};

}  // namespace

int run_flops(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("arch", po::value<std::string>()->value_name("NAME|FILE"), "catalog model or architecture YAML file")
      ("params", po::value<std::string>()->value_name("N"), "a parameter count instead of an architecture (6nd only)")
      ("tokens", po::value<std::string>()->value_name("D"), "training tokens")
      ("global-batch", po::value<std::string>()->value_name("B"), "one iteration of B sequences")
      ("seq", po::value<std::string>()->value_name("S"), "sequence length (default: the model's)")
      ("flops-convention", po::value<std::string>()->value_name("NAME"), "6nd|chinchilla|megatron (default 6nd)")
      ("recompute", po::value<std::string>()->value_name("MODE"), "megatron hardware FLOPs: none|selective|full (default full)")
      ("non-embedding", po::bool_switch(), "6nd with non-embedding parameters (Kaplan et al. 2020)");
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"arch", "params"});
  require_one_of(vm, {"tokens", "global-batch"});
  const auto convention = model::kFlopsConventionNames.parse(get_string(vm, "flops-convention").value_or("6nd"),
                                                            "--flops-convention");
  const auto recompute = parallel::kRecomputeNames.parse(get_string(vm, "recompute").value_or("full"), "--recompute");
  const bool non_embedding = vm["non-embedding"].as<bool>();

  Json doc = {{"schema", "isoflop/flops/v1"}};
  Json inputs = Json::object();
  double params = 0;
  std::optional<model::Architecture> arch;
  model::ParamCount pc;
  if (auto p = get_count(vm, "params")) {
    if (convention != model::FlopsConvention::k6nd)
      throw InputError("--flops-convention " + std::string(model::kFlopsConventionNames.name(convention)) +
                       " needs an architecture; give --arch (--params allows only 6nd)");
    params = *p;
    inputs["params"] = *p;
  } else {
    const catalog::Catalog cat = load_catalog(parsed->common);
    arch = resolve_architecture(cat, *get_string(vm, "arch"));
    pc = model::count_params(*arch);
    // MoE: FLOPs follow the parameters a token passes through (top-k experts), not the total.
    params = non_embedding ? pc.non_embedding() : (arch->moe.enabled() ? pc.active : pc.total());
    inputs["arch"] = *get_string(vm, "arch");
  }
  const long long seq = get_integer(vm, "seq").value_or(arch ? arch->seq : 2048);
  double tokens = 0;
  long long sequences = 0;
  if (auto b = get_integer(vm, "global-batch")) {
    sequences = *b;
    tokens = static_cast<double>(*b) * seq;
    inputs["global_batch"] = *b;
    inputs["seq"] = seq;
  } else {
    tokens = *get_count(vm, "tokens");
    sequences = static_cast<long long>(tokens / seq);
    inputs["tokens"] = tokens;
  }
  inputs["flops_convention"] = std::string(model::kFlopsConventionNames.name(convention));
  double flops = 0;
  Json breakdown = Json::object();
  std::string note;
  switch (convention) {
    case model::FlopsConvention::k6nd:
      flops = 6 * params * tokens;
      note = non_embedding ? "6·N·D with non-embedding N"
             : (arch && arch->moe.enabled() ? "6·N·D with active N (MoE)" : "6·N·D with total N");
      break;
    case model::FlopsConvention::kChinchilla: {
      const auto f = model::chinchilla_forward_flops(*arch, seq);
      const double per_token = 3 * f.total() / seq;
      flops = per_token * tokens;
      const double scale = 3 * tokens / seq;
      breakdown = {{"embeddings", f.embeddings * scale}, {"qkv", f.qkv * scale},
                   {"attention_logits", f.attention_logits * scale}, {"softmax", f.softmax * scale},
                   {"attention_reduce", f.attention_reduce * scale}, {"output_projection", f.output_projection * scale},
                   {"dense", f.dense * scale}, {"final_logits", f.final_logits * scale}};
      note = "Hoffmann et al. 2022 App. F, backward = 2 x forward";
      break;
    }
    case model::FlopsConvention::kMegatron: {
      const double per_seq_model = model::korthikanti_eq7_flops(*arch, 1, seq);
      const double per_seq_hw = recompute == parallel::Recompute::kFull ? model::narayanan_eq3_flops(*arch, 1, seq)
                                : recompute == parallel::Recompute::kSelective ? model::korthikanti_eq8_flops(*arch, 1, seq)
                                                                                : per_seq_model;
      const double n_seq = tokens / seq;
      flops = per_seq_hw * n_seq;
      breakdown = {{"model_flops", per_seq_model * n_seq}, {"hardware_flops", per_seq_hw * n_seq}};
      note = "hardware FLOPs (Narayanan eq. 3 / Korthikanti eq. 8); model FLOPs by Korthikanti eq. 7";
      break;
    }
  }
  (void)sequences;
  doc["inputs"] = inputs;
  doc["convention"] = std::string(model::kFlopsConventionNames.name(convention));
  doc["note"] = note;
  doc["params"] = params;
  doc["tokens"] = tokens;
  doc["flops"] = flops;
  doc["flops_per_token"] = flops / tokens;
  doc["breakdown"] = breakdown;
  if (arch) {
    doc["params_breakdown"] = {{"token_embedding", pc.token_embedding}, {"position_embedding", pc.position_embedding},
                               {"attention", pc.attention}, {"mlp", pc.mlp}, {"experts", pc.experts},
                               {"norms", pc.norms}, {"output_head", pc.output_head}, {"total", pc.total()},
                               {"non_embedding", pc.non_embedding()}, {"active", pc.active}};
  }
  auto table = [&] {
    std::vector<std::pair<std::string, std::string>> kv = {
        {"convention", doc["convention"].get<std::string>() + " (" + note + ")"},
        {"parameters", units::format_count(params, 4)},
        {"tokens", units::format_count(tokens, 4)},
        {"FLOPs", units::format_scientific(flops, 5)},
        {"FLOPs per token", units::format_scientific(flops / tokens, 5)}};
    std::string out = report::render_key_values(kv, 0);
    if (arch) {
      out += "\nParameters by component\n";
      report::TextTable t({"component", "parameters"});
      for (const auto& [k, v] : doc["params_breakdown"].items()) t.add_row({k, units::format_count(v.get<double>(), 4)});
      out += t.render();
    }
    if (!breakdown.empty()) {
      out += "\nFLOPs by part\n";
      report::TextTable t({"part", "FLOPs"});
      for (const auto& [k, v] : breakdown.items()) t.add_row({k, units::format_scientific(v.get<double>(), 4)});
      out += t.render();
    }
    return out;
  };
  write_result(parsed->common, doc, table);
  return 0;
}

}  // namespace isoflop::app
