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

std::optional<bool> get_on_off(const po::variables_map& vm, const std::string& name) {
  const auto text = get_string(vm, name);
  if (!text) return std::nullopt;
  if (*text == "on") return true;
  if (*text == "off") return false;
  throw InputError("--" + name + ": '" + *text + "' is not one of on|off");
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
                 ": the trainer whose rules and defaults apply (default megatron; data/trainers.yaml)");
  const OptionList choices = declared_options("options", "layout");
  list.insert(list.end(), choices.begin(), choices.end());
  return list;
}

parallel::JobSettings job_settings(const po::variables_map& vm) {
  parallel::JobSettings j;
  if (const auto a = get_string(vm, "attention")) j.attention = parallel::kAttentionKernelNames.parse(*a, "--attention");
  if (const auto p = get_string(vm, "precision")) j.precision = parallel::kMatmulPrecisionNames.parse(*p, "--precision");
  if (const auto d = get_on_off(vm, "dropout")) j.dropout = *d;
  return j;
}

parallel::ClusterRequest cluster_request(const po::variables_map& vm) {
  return {get_string(vm, "gpu"), get_string(vm, "node"), get_integer(vm, "gpus"), get_integer(vm, "nodes"),
          get_integer(vm, "gpus-per-node")};
}

void apply_search_options(const po::variables_map& vm, parallel::SearchOptions& o) {
  for (const auto& d : parallel::dimensions())
    if (const auto text = get_string(vm, option_name(d))) d.pin(o.pins, parallel::parse_value(d, *text));
  if (const auto t = get_string(vm, "trainer")) {
    parallel::kTrainerNames.parse(*t, "--trainer");
    o.trainer = {};
    o.trainer.name = *t;
  }
  if (const auto v = get_on_off(vm, "overlap-grad-reduce")) o.time.overlap_grad_reduce = v;
  if (const auto v = get_on_off(vm, "overlap-param-gather")) o.time.overlap_param_gather = v;
  if (const auto v = get_on_off(vm, "tp-comm-overlap")) o.time.tp_comm_overlap = v;
  if (const auto g = get_string(vm, "grad-reduce")) o.time.grad_reduce = parallel::kGradReduceNames.parse(*g, "--grad-reduce");
  if (const auto t = get_int(vm, "max-tp")) o.max_tp = *t;
  if (const auto c = get_int(vm, "max-cp")) o.max_cp = *c;
  if (const auto obj = get_string(vm, "objective")) {
    const std::string key = (*obj == "cost" || *obj == "energy") ? std::string("time") : *obj;
    if (key != "time" && key != "memory")
      throw InputError("--objective: '" + *obj + "' is not one of time|memory|cost|energy");
    o.objective = parallel::kObjectiveNames.parse(key, "--objective");
  }
  if (const auto k = get_int(vm, "top")) o.top_k = *k;
}

void resolve_trainer(const catalog::Catalog& catalog, parallel::SearchOptions& o) {
  const std::string name = o.trainer.name.empty() ? std::string(parallel::kTrainerNames.name(parallel::Trainer::kMegatron))
                                                  : o.trainer.name;
  o.trainer = catalog.trainer(name);
}

parallel::SearchOptions search_options(const po::variables_map& vm) {
  parallel::SearchOptions o;
  apply_search_options(vm, o);
  return o;
}

std::string infeasible_message(const parallel::Infeasibility& why) {
  std::string out = why.reason;
  const char* separator = "; to fit: ";
  for (const auto& c : why.changes) {
    out += separator;
    separator = ", or ";
    if (!c.number && !c.text) {
      out += c.note + " (" + flag_for_field(c.field) + ")";
      continue;
    }
    out += flag_for_field(c.field) + " " + (c.number ? std::to_string(*c.number) : *c.text);
    if (!c.note.empty()) out += " (" + c.note + ")";
  }
  return out;
}

}  // namespace isoflop::app
