// isoflop cost: time, GPU-hours, power, energy (three methods), CO2e, money and the 4Ms what-if of a training
// run; the inverse, the FLOPs a duration affords; and an earlier run recosted (--from).
#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/cost_options.hpp"
#include "app/layout_options.hpp"
#include "core/error.hpp"
#include "doc/cost_document.hpp"
#include "doc/cost_table.hpp"
#include "doc/plan_document.hpp"

namespace isoflop::app {
namespace {

// The work and cluster options, which --from does not take (the document carries them).
const std::vector<std::string> kRunOptions = {"flops", "params", "tokens", "time", "mfu", "tflops-per-gpu",
                                              "gpu", "node", "gpus", "nodes", "gpus-per-node"};

}  // namespace

int run_cost(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("cost"), args, {declared_options("cost"), from_option("a cost or plan document"), energy_options(),
                                                  whatif_options(true), cluster_options()});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  const cost::EnergyRequest energy = energy_request(vm);
  const catalog::Catalog cat = load_catalog(parsed->common);

  doc::CostDocument document;
  std::optional<plan::PlanProblem> refused;  // a plan that `plan` refused: costed as it did, and exit 1 as it did
  if (auto from = read_from(vm, {"cost", "plan"})) {
    for (const auto& name : kRunOptions)
      if (has(vm, name)) throw InputError("--" + name + ": not with --from (the document gives the run)");
    document = doc::recost_document(*from, energy, cat);
    if (from->kind == "plan") refused = doc::decode<plan::PlanResult>(*from).problem;
  } else {
    require_one_of(vm, {"mfu", "tflops-per-gpu"}, false);
    document = doc::make_cost_document({get_count(vm, "flops"), get_count(vm, "params"), get_count(vm, "tokens"),
                                        get_duration_s(vm, "time"), get_number(vm, "mfu"),
                                        get_number(vm, "tflops-per-gpu"), cluster_request(vm), energy},
                                       cat);
  }
  write_document(parsed->common, doc::Json(document),
                 [&] { return doc::render_cost_page(document, whatif_table(vm)); });
  if (!refused) return 0;
  std::fprintf(stderr,
               "isoflop: refused: the plan was refused, so this is the cost of a run it does not recommend: %s\n",
               infeasible_message(refused->reason, refused->changes, parallel::kToReachFloor).c_str());
  return static_cast<int>(ExitStatus::kFailed);
}

}  // namespace isoflop::app
