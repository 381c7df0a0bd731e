// isoflop flops: parameters and FLOPs of a model and a workload, by counting convention.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "doc/flops_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "flops",
    "isoflop flops (--arch NAME|FILE | --from FILE | --params N) (--tokens D | --global-batch B [--seq S]) [options]",
    "Counts a model's parameters by component and the FLOPs of a workload under a named convention:\n"
    "6nd (6·N·D), chinchilla (Hoffmann et al. 2022 App. F, per operation, backward = 2 × forward) or\n"
    "megatron (Narayanan et al. 2021 eq. 3 hardware FLOPs with the recompute forward, and Korthikanti et al.\n"
    "2022 eq. 7 model FLOPs / eq. 8 with selective recompute). --recompute none|selective|full gives hardware\n"
    "FLOPs in any convention. A mixture of experts counts the top-k experts per token times the capacity\n"
    "factor, plus the router. With --global-batch the workload is one iteration; with --tokens, the whole run.\n"
    "--arch takes a catalog id, a YAML file, or an arch, layout or plan document (-o json or -o yaml output);\n"
    "--from reads such a document and, from a plan, its tokens too.",
    {"isoflop flops --arch mt-nlg-530b --global-batch 1920 --flops-convention megatron",
     "isoflop flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla",
     "isoflop flops --params 70B --tokens 1.4T                 # 6ND: 5.88e23",
     "isoflop flops --arch gpt3-175b --tokens 300B -o json",
     "isoflop flops --arch st-moe-32b --tokens 1T --flops-convention chinchilla   # ~ a 32B dense model",
     "isoflop flops --arch chinchilla-70b --tokens 1.4T --flops-convention chinchilla --recompute full",
     "isoflop flops --from plan.json --flops-convention chinchilla   # the plan's model and tokens"}};

const OptionList kOptions = {
    "arch NAME|FILE: catalog model, architecture YAML file, or document (- reads stdin)",
    "params N: a parameter count instead of an architecture (6nd only)",
    "tokens D: training tokens (default with --from a plan: the plan's)",
    "global-batch B: one iteration of B sequences",
    "seq S: sequence length (default: the model's)",
    "flops-convention NAME: 6nd|chinchilla|megatron (default 6nd)",
    "recompute MODE: hardware FLOPs with recompute: none|selective|full (default: full for megatron, none otherwise)",
    "non-embedding: 6nd with non-embedding parameters (Kaplan et al. 2020)"};

}  // namespace

int run_flops(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions, from_option("an arch, layout or plan document")});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"arch", "params", "from"});
  require_one_of(vm, {"tokens", "global-batch"}, !vm.count("from"));
  const doc::FlopsRequest request{
      .arch = get_string(vm, "arch"), .from = get_string(vm, "from"), .params = get_count(vm, "params"),
      .tokens = get_count(vm, "tokens"), .global_batch = get_integer(vm, "global-batch"), .seq = get_integer(vm, "seq"),
      .convention = get_enum(vm, "flops-convention", model::kFlopsConventionNames).value_or(model::FlopsConvention::k6nd),
      .recompute = get_enum(vm, "recompute", model::kRecomputeNames),
      .non_embedding = get_switch(vm, "non-embedding")};
  // A catalog is needed only to resolve --arch.
  const catalog::Catalog cat = request.arch ? load_catalog(parsed->common) : catalog::Catalog{};
  const doc::FlopsDocument result = doc::count_flops(cat, request);
  write_document(parsed->common, doc::Json(result), [&] { return doc::render_flops_page(result); });
  return 0;
}

}  // namespace isoflop::app
