// isoflop arch: an architecture for a parameter count, dense or a mixture of experts, after a reference family.
#include <spdlog/spdlog.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "doc/arch_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "arch",
    "isoflop arch (--params N | --active-params N) [--style chinchilla|kaplan|megatron|llama2|llama3] [--tp T] [--vocab V]\n"
    "       [--seq S] [--top K] [--moe --experts E [--top-k K] [--capacity-factor F] [--moe-every K] [--ep D]]",
    "Proposes layers, d_model, heads and ffn whose exact parameter count is within 2% of N, with d_model a\n"
    "multiple of 128, heads of 64 or 128 divisible by the tensor-parallel degree, and depth against width after a\n"
    "reference family from data/shapes.yaml: chinchilla (the aspect ratio d_model/layers of Hoffmann et al. 2022\n"
    "Table A9 and Chinchilla 70B, averaged around N), kaplan (the constant aspect of Kaplan et al. 2020's\n"
    "(48, 1600) model), megatron (NeMo's GPT-3 size bands fix d_model and heads; the depth makes up N), llama2\n"
    "or llama3 (the aspect of Llama 2 7B-70B or Llama 3 8B-405B, with their SwiGLU, grouped-query block). The\n"
    "block (norm, positions, activation, ffn / d_model, vocabulary, sequence) is the family's reference model.\n"
    "It prints the exact count, the ratio to the target and the next best shapes. With --moe it shapes a sparse\n"
    "model: N is the total (or, with --active-params, the active) count, and it reports total and active\n"
    "parameters and the FLOPs per token as a dense equivalent. It warns when the routing departs from ST-MoE's\n"
    "recommendations (Zoph et al. 2022; 'isoflop catalog models' shows them: routing, capacity factors in training\n"
    "and evaluation, experts per layer and per device). Its defaults come from the same catalog entry.",
    {"isoflop arch --params 70B --tp 8                          # 80 x 8192, 64 heads of 128 (Chinchilla 70B)",
     "isoflop arch --params 1.3B --style kaplan --seq 1024",
     "isoflop arch --params 175B --style megatron --tp 8 -o json",
     "isoflop arch --params 269B --moe --experts 64 --tp 8     # ST-MoE-32B-like: 64 experts every 4th layer",
     "isoflop arch --active-params 32B --moe --experts 64 --ep 64",
     "isoflop arch --params 7B --top 5 -o csv"}};

const OptionList kOptions = {
    "params N: parameter budget (total parameters), e.g. 70B",
    "active-params N: with --moe: the active parameters per token instead",
    "style NAME: reference family: chinchilla|kaplan|megatron|llama2|llama3 (default chinchilla)",
    "tp T: tensor-parallel degree, a power of 2: heads divisible by it (default 1)",
    "vocab V: vocabulary size (default: the family's)",
    "seq S: sequence length (default: the family's)",
    "top K: how many alternatives to show (default 3)",
    "moe: shape a sparse mixture of experts",
    "experts E: with --moe: experts per MoE layer (at least 2)",
    "top-k K: with --moe: experts per token (default: the catalog's ST-MoE value)",
    "capacity-factor F: with --moe: training capacity factor (default: the catalog's)",
    "eval-capacity-factor F: with --moe: evaluation capacity factor (default: the catalog's)",
    "moe-every K: with --moe: every K-th layer is an MoE layer (default: the catalog's)",
    "ep D: with --moe: expert-parallel devices (must divide the experts)"};

// The sparse model's request; every MoE option is refused without --moe.
std::optional<doc::ArchMoeRequest> moe_request(const po::variables_map& vm) {
  if (!get_switch(vm, "moe")) {
    for (const char* name :
         {"active-params", "experts", "top-k", "capacity-factor", "eval-capacity-factor", "moe-every", "ep"})
      if (vm.count(name)) throw InputError(std::string("--") + name + ": only with --moe (a sparse model)");
    return std::nullopt;
  }
  if (!vm.count("experts")) throw InputError("--moe needs --experts E (experts per MoE layer, at least 2)");
  return doc::ArchMoeRequest{*get_int(vm, "experts"), get_int(vm, "top-k"), get_number(vm, "capacity-factor"),
                             get_number(vm, "eval-capacity-factor"), get_int(vm, "moe-every"), get_int(vm, "ep")};
}

}  // namespace

int run_arch(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"params", "active-params"});
  const auto moe = moe_request(vm);
  const bool active = vm.count("active-params") > 0;
  const doc::ArchRequest request{.params = *get_count(vm, active ? "active-params" : "params"),
                                 .target_active = active,
                                 .style = get_string(vm, "style").value_or("chinchilla"),
                                 .tp = get_int(vm, "tp").value_or(1),
                                 .vocab = get_integer(vm, "vocab"),
                                 .seq = get_integer(vm, "seq"),
                                 .alternatives = get_int(vm, "top", units::Sign::kNonNegative).value_or(3),
                                 .moe = moe};
  const doc::ArchDocument result = doc::design_architecture(load_catalog(parsed->common), request);
  for (const auto& w : result.moe_departures) spdlog::warn("{}", w);
  write_document(parsed->common, doc::Json(result), [&] { return doc::render_arch_page(result); }, "alternatives");
  return 0;
}

}  // namespace isoflop::app
