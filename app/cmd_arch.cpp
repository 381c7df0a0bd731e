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

}  // namespace

int run_arch(const std::vector<std::string>& args) {
  po::options_description options("Options");
  options.add_options()
      ("params", po::value<std::string>()->value_name("N"), "parameter budget (total parameters), e.g. 70B")
      ("active-params", po::value<std::string>()->value_name("N"), "with --moe: the active parameters per token instead")
      ("style", po::value<std::string>()->value_name("NAME"), "reference family: chinchilla|kaplan|megatron|llama2|llama3 (default chinchilla)")
      ("tp", po::value<std::string>()->value_name("T"), "tensor-parallel degree, a power of 2: heads divisible by it (default 1)")
      ("vocab", po::value<std::string>()->value_name("V"), "vocabulary size (default: the family's)")
      ("seq", po::value<std::string>()->value_name("S"), "sequence length (default: the family's)")
      ("top", po::value<std::string>()->value_name("K"), "how many alternatives to show (default 3)")
      ("moe", po::bool_switch(), "shape a sparse mixture of experts")
      ("experts", po::value<std::string>()->value_name("E"), "with --moe: experts per MoE layer (at least 2)")
      ("top-k", po::value<std::string>()->value_name("K"), "with --moe: experts per token (default: the catalog's ST-MoE value)")
      ("capacity-factor", po::value<std::string>()->value_name("F"), "with --moe: training capacity factor (default: the catalog's)")
      ("eval-capacity-factor", po::value<std::string>()->value_name("F"), "with --moe: evaluation capacity factor (default: the catalog's)")
      ("moe-every", po::value<std::string>()->value_name("K"), "with --moe: every K-th layer is an MoE layer (default: the catalog's)")
      ("ep", po::value<std::string>()->value_name("D"), "with --moe: expert-parallel devices (must divide the experts)");
  auto parsed = parse_command_line(kHelp, args, options);
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"params", "active-params"});
  const bool moe = vm["moe"].as<bool>();
  if (!moe)
    for (const char* name : {"active-params", "experts", "top-k", "capacity-factor", "eval-capacity-factor", "moe-every", "ep"})
      if (vm.count(name)) throw InputError(std::string("--") + name + ": only with --moe (a sparse model)");

  doc::ArchRequest request;
  request.target_active = vm.count("active-params") > 0;
  request.params = *get_count(vm, request.target_active ? "active-params" : "params");
  request.style = get_string(vm, "style").value_or("chinchilla");
  request.tp = get_int(vm, "tp").value_or(1);
  request.vocab = get_integer(vm, "vocab");
  request.seq = get_integer(vm, "seq");
  request.alternatives = get_int(vm, "top", units::Sign::kNonNegative).value_or(3);
  if (moe) {
    if (!vm.count("experts")) throw InputError("--moe needs --experts E (experts per MoE layer, at least 2)");
    request.moe = doc::ArchMoeRequest{*get_int(vm, "experts"), get_int(vm, "top-k"), get_number(vm, "capacity-factor"),
                                      get_number(vm, "eval-capacity-factor"), get_int(vm, "moe-every"), get_int(vm, "ep")};
  }
  const doc::ArchDocument result = doc::design_architecture(load_catalog(parsed->common), request);
  for (const auto& w : result.moe_departures) spdlog::warn("{}", w);
  write_document(parsed->common, doc::Json(result), [&] { return doc::render_arch_page(result); }, "alternatives");
  return 0;
}

}  // namespace isoflop::app
