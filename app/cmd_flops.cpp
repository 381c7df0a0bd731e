// isoflop flops: parameters and FLOPs of a model and a workload, by counting convention.
#include "app/arch_input.hpp"
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/params_json.hpp"
#include "core/error.hpp"
#include "model/flops.hpp"
#include "model/params.hpp"
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
    "2022 eq. 7 model FLOPs / eq. 8 with selective recompute). --recompute none|selective|full gives hardware\n"
    "FLOPs in any convention. A mixture of experts counts the top-k experts per token times the capacity\n"
    "factor, plus the router. With --global-batch the workload is one iteration; with --tokens, the whole run.",
    {"isoflop flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron",
     "isoflop flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla",
     "isoflop flops --params 70B --tokens 1.4T                 # 6ND: 5.88e23",
     "isoflop flops --arch gpt3-175b --tokens 300B -o json",
     "isoflop flops --arch st-moe-32b --tokens 1T --flops-convention chinchilla   # ~ a 32B dense model",
     "isoflop flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla --recompute full"}};

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
      ("recompute", po::value<std::string>()->value_name("MODE"),
       "hardware FLOPs with recompute: none|selective|full (default: full for megatron, none otherwise)")
      ("non-embedding", po::bool_switch(), "6nd with non-embedding parameters (Kaplan et al. 2020)");
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"arch", "params"});
  require_one_of(vm, {"tokens", "global-batch"});
  const auto convention = model::kFlopsConventionNames.parse(get_string(vm, "flops-convention").value_or("6nd"),
                                                            "--flops-convention");
  // Recompute: Narayanan eq. 3 counts the full-recompute forward, so megatron defaults to full; App. F and 6ND
  // count model FLOPs, so chinchilla and 6nd default to none.
  const auto recompute_text = get_string(vm, "recompute");
  const auto recompute = model::kRecomputeNames.parse(
      recompute_text.value_or(convention == model::FlopsConvention::kMegatron ? "full" : "none"), "--recompute");
  if (convention == model::FlopsConvention::k6nd && recompute == model::Recompute::kSelective)
    throw InputError("--recompute selective needs the attention shape; use --flops-convention chinchilla or megatron");
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
  if (auto b = get_integer(vm, "global-batch")) {
    tokens = static_cast<double>(*b) * seq;
    inputs["global_batch"] = *b;
    inputs["seq"] = seq;
  } else {
    tokens = *get_count(vm, "tokens");
    inputs["tokens"] = tokens;
  }
  inputs["flops_convention"] = std::string(model::kFlopsConventionNames.name(convention));
  inputs["recompute"] = std::string(model::kRecomputeNames.name(recompute));
  double model_flops = 0, flops = 0;
  Json breakdown = Json::object();
  std::string note;
  const double n_seq = tokens / seq;
  switch (convention) {
    case model::FlopsConvention::k6nd:
      model_flops = 6 * params * tokens;
      // Full recompute adds one forward (2·N·D): Narayanan et al. 2021 eq. 4's 8·T·P.
      flops = recompute == model::Recompute::kFull ? 8 * params * tokens : model_flops;
      note = non_embedding ? "6·N·D with non-embedding N"
             : (arch && arch->moe.enabled() ? "6·N·D with active N (MoE)" : "6·N·D with total N");
      if (recompute == model::Recompute::kFull) note += "; full recompute: 8·N·D (Narayanan et al. 2021 eq. 4)";
      break;
    case model::FlopsConvention::kChinchilla: {
      const auto f = model::chinchilla_forward_flops(*arch, seq);
      const double scale = 3 * n_seq;  // backward = 2 × forward
      model_flops = f.total() * scale;
      const double recomputed = model::chinchilla_recompute_flops_per_sequence(*arch, seq, recompute) * n_seq;
      flops = model_flops + recomputed;
      breakdown = {{"embeddings", f.embeddings * scale}, {"qkv", f.qkv * scale},
                   {"attention_logits", f.attention_logits * scale}, {"softmax", f.softmax * scale},
                   {"attention_reduce", f.attention_reduce * scale}, {"output_projection", f.output_projection * scale},
                   {"dense", f.dense * scale}, {"final_logits", f.final_logits * scale}};
      if (arch->moe.enabled()) {
        breakdown["experts"] = f.experts * scale;
        breakdown["router"] = f.router * scale;
      }
      breakdown["recompute"] = recomputed;
      note = "Hoffmann et al. 2022 App. F, backward = 2 x forward";
      if (recompute == model::Recompute::kFull) note += "; full recompute: one more forward of every layer";
      if (recompute == model::Recompute::kSelective) note += "; selective recompute: one more forward of the attention core";
      break;
    }
    case model::FlopsConvention::kMegatron: {
      const model::MegatronFlops f = model::megatron_flops(*arch, n_seq, seq, recompute);
      model_flops = f.model();
      flops = f.hardware();
      breakdown = {{"attention_projections", f.attention_projections}, {"attention_scores", f.attention_scores},
                   {"mlp", f.mlp}, {"logits", f.logits}};
      if (arch->moe.enabled()) {
        breakdown["experts"] = f.experts;
        breakdown["router"] = f.router;
      }
      breakdown["recompute"] = f.recompute;
      breakdown["model_flops"] = f.model();
      breakdown["hardware_flops"] = f.hardware();
      note = recompute == model::Recompute::kFull        ? "hardware FLOPs with full recompute (Narayanan eq. 3)"
             : recompute == model::Recompute::kSelective ? "hardware FLOPs with selective recompute (Korthikanti eq. 8)"
                                                          : "model FLOPs (Korthikanti eq. 7)";
      note += arch->moe.enabled() ? ", MoE layers at top-k x capacity factor experts plus the router" : "";
      break;
    }
  }
  doc["inputs"] = inputs;
  doc["convention"] = std::string(model::kFlopsConventionNames.name(convention));
  doc["note"] = note;
  doc["params"] = params;
  doc["tokens"] = tokens;
  doc["recompute"] = std::string(model::kRecomputeNames.name(recompute));
  doc["flops"] = flops;
  doc["model_flops"] = model_flops;
  doc["hardware_flops"] = flops;
  doc["flops_per_token"] = flops / tokens;
  doc["breakdown"] = breakdown;
  if (arch) {
    doc["params_breakdown"] = params_breakdown_json(pc);
  }
  auto table = [&] {
    std::vector<std::pair<std::string, std::string>> kv = {
        {"convention", doc["convention"].get<std::string>() + " (" + note + ")"},
        {"parameters", units::format_count(params, 4)},
        {"tokens", units::format_count(tokens, 4)},
        {"FLOPs", units::format_scientific(flops, 5) +
                      (flops != model_flops ? " (hardware, recompute " + doc["recompute"].get<std::string>() +
                                                  "; model " + units::format_scientific(model_flops, 5) + ")"
                                            : "")},
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
