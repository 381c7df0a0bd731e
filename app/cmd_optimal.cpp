// isoflop optimal: compute-optimal parameters and tokens for a budget, the inverse queries, and the band.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "doc/optimal_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "optimal",
    "isoflop optimal (--flops C | --params N | --tokens D | --target-loss L) [options]",
    "Compute-optimal model size N and training tokens D for a budget of C FLOPs (C = 6ND), under a scaling law\n"
    "(default epoch-2024). Inverse queries: --params N or --tokens D gives the budget at which that size is\n"
    "optimal; --target-loss L the least compute that reaches loss L (with --params N: the tokens N needs).\n"
    "Constraints: --unique-tokens U caps distinct data (repeated epochs decay, Muennighoff et al. 2023);\n"
    "--inference-tokens T minimises training plus inference FLOPs 6ND + 2NT at the loss the compute-optimal\n"
    "model reaches (Sardana et al. 2024). --all-laws answers with every catalog law.",
    {"isoflop optimal --flops 5.76e23                      # Gopher's budget, default law",
     "isoflop optimal --flops 5.76e23 --law chinchilla     # Approach 3, rounded constants",
     "isoflop optimal --flops 1e24 --all-laws              # the spread between the laws",
     "isoflop optimal --params 70B -o json                 # the budget at which 70B is optimal",
     "isoflop optimal --target-loss 2.0                    # least compute for loss 2.0",
     "isoflop optimal --flops 1e23 --unique-tokens 100B --law muennighoff-2023",
     "isoflop optimal --flops 5.76e23 --inference-tokens 2T  # smaller model, more tokens",
     "isoflop optimal --flops 1e22 --law-params 1.69,406.4,410.7,0.34,0.28"}};

const OptionList kOptions = {
    "flops C: training budget in FLOPs (5.76e23, 1e24)",
    "params N: parameters (70B): the budget at which N is optimal",
    "tokens D: tokens (1.4T): the budget at which D is optimal",
    "target-loss L: the least compute that reaches loss L",
    "unique-tokens U: distinct tokens available (data cap)",
    "inference-tokens T: tokens served over the model's life"};

}  // namespace

int run_optimal(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions, law_options()});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  // With a target loss, --params asks for the tokens that N needs.
  if (vm.count("target-loss") && vm.count("params")) require_one_of(vm, {"flops", "target-loss", "tokens"});
  else require_one_of(vm, {"flops", "params", "tokens", "target-loss"});
  const scaling::OptimalRequest request{.flops = get_count(vm, "flops"),
                                        .params = get_count(vm, "params"),
                                        .tokens = get_count(vm, "tokens"),
                                        .target_loss = get_number(vm, "target-loss"),
                                        .unique_tokens = get_count(vm, "unique-tokens"),
                                        .inference_tokens = get_count(vm, "inference-tokens", units::Sign::kNonNegative),
                                        .laws = law_choice(vm)};
  const doc::OptimalDocument document = doc::optimal_document(load_catalog(parsed->common), request);
  write_document(parsed->common, doc::Json(document), [&] { return doc::render_optimal(document); }, "allocations");
  return 0;
}

}  // namespace isoflop::app
