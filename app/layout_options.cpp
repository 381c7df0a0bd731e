// Options shared by `layout`, `plan` and `cost`: the cluster (--gpu/--node/--gpus/--nodes) and one pin per
// knob of the library's table of dimensions.
#include "app/layout_options.hpp"

#include "app/flags.hpp"
#include "core/error.hpp"

namespace isoflop::app {
namespace {

std::string option_name(const parallel::Dimension& d) { return flag_for_field(d.name).substr(2); }

std::string value_name(const parallel::Dimension& d) {
  switch (d.type) {
    case parallel::ValueType::kRecompute: return join(parallel::kRecomputeNames.names(), "|");
    case parallel::ValueType::kSwitch: return "on|off";
    case parallel::ValueType::kInteger: break;
  }
  return d.max < 1'000'000 ? std::to_string(d.min) + ".." + std::to_string(d.max) : "N";
}

}  // namespace

const OptionList& cluster_options() {
  static const OptionList list = declared_options("options", "cluster");
  return list;
}

OptionList layout_options() {
  OptionList list;
  for (const auto& d : parallel::dimensions())
    list.push_back(option_name(d) + " " + value_name(d) + ": pin the " + std::string(d.meaning));
  list.push_back("trainer " + join(parallel::kTrainerNames.names(), "|") +
                 ": the trainer whose rules and defaults apply, as the file isoflop writes for it can express "
                 "them (default megatron; data/trainers.yaml)");
  const OptionList choices = declared_options("options", "layout");
  list.insert(list.end(), choices.begin(), choices.end());
  return list;
}

parallel::JobSettings job_settings(const po::variables_map& vm) {
  return parallel::job_settings({get_string(vm, "attention"), get_string(vm, "precision"), get_string(vm, "dropout")});
}

parallel::ClusterRequest cluster_request(const po::variables_map& vm) {
  return {get_string(vm, "gpu"), get_string(vm, "node"), get_integer(vm, "gpus"), get_integer(vm, "nodes"),
          get_integer(vm, "gpus-per-node")};
}

parallel::LayoutRequest layout_request(const po::variables_map& vm) {
  parallel::LayoutRequest r;
  for (const auto& d : parallel::dimensions())
    if (const auto text = get_string(vm, option_name(d))) r.pins.emplace_back(d.name, *text);
  r.trainer = get_string(vm, "trainer");
  r.overlap_grad_reduce = get_string(vm, "overlap-grad-reduce");
  r.overlap_param_gather = get_string(vm, "overlap-param-gather");
  r.tp_comm_overlap = get_string(vm, "tp-comm-overlap");
  r.grad_reduce = get_string(vm, "grad-reduce");
  r.max_tp = get_int(vm, "max-tp");
  r.max_cp = get_int(vm, "max-cp");
  r.objective = get_string(vm, "objective");
  r.top_k = get_int(vm, "top");
  return r;
}

std::string infeasible_message(const parallel::Infeasibility& why) {
  return parallel::describe_spelled(why, flag_for_field);
}

std::string infeasible_message(const std::string& reason, const std::vector<parallel::SuggestedChange>& changes,
                               const char* lead) {
  parallel::Infeasibility why;
  why.reason = reason;
  why.changes = changes;
  return parallel::describe_spelled(why, flag_for_field, lead);
}

}  // namespace isoflop::app
