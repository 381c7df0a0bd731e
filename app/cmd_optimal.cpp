// isoflop optimal: compute-optimal parameters and tokens for a budget, the inverse queries, and the band.
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "doc/optimal_document.hpp"

namespace isoflop::app {

int run_optimal(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("optimal"), args, {declared_options("optimal"), law_options()});
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
