// Turning a layout request in words into the search's options.
#include "parallel/layout_request.hpp"

#include "core/error.hpp"
#include "parallel/trainer_rules.hpp"

namespace isoflop::parallel {
namespace {

inline constexpr EnumNames<bool, 2> kSwitchNames{{{{true, "on"}, {false, "off"}}}};

std::optional<bool> switch_value(const std::optional<std::string>& text, const std::string& field) {
  if (!text) return std::nullopt;
  return kSwitchNames.parse_field(*text, field);
}

}  // namespace

void apply_layout_request(const LayoutRequest& r, SearchOptions& o) {
  for (const auto& [field, text] : r.pins) {
    const Dimension* d = find_dimension(field);
    if (!d) throw FieldError(field, "is not a knob of the layout search");
    d->pin(o.pins, parse_value(*d, text));
  }
  if (r.trainer) {
    kTrainerNames.parse_field(*r.trainer, "trainer");
    o.trainer = {};
    o.trainer.name = *r.trainer;
  }
  if (const auto v = switch_value(r.overlap_grad_reduce, "overlap_grad_reduce")) o.time.overlap_grad_reduce = v;
  if (const auto v = switch_value(r.overlap_param_gather, "overlap_param_gather")) o.time.overlap_param_gather = v;
  if (const auto v = switch_value(r.tp_comm_overlap, "tp_comm_overlap")) o.time.tp_comm_overlap = v;
  if (r.grad_reduce) o.time.grad_reduce = kGradReduceNames.parse_field(*r.grad_reduce, "grad_reduce");
  if (r.max_tp) o.max_tp = *r.max_tp;
  if (r.max_cp) o.max_cp = *r.max_cp;
  if (r.objective) {
    const std::string key = (*r.objective == "cost" || *r.objective == "energy") ? std::string("time") : *r.objective;
    if (key != "time" && key != "memory")
      throw FieldError("objective", "'" + *r.objective + "' is not one of time|memory|cost|energy");
    o.objective = kObjectiveNames.parse_field(key, "objective");
  }
  if (r.top_k) o.top_k = *r.top_k;
}

SearchOptions search_options(const LayoutRequest& request) {
  SearchOptions o;
  apply_layout_request(request, o);
  return o;
}

void resolve_trainer(const catalog::Catalog& catalog, SearchOptions& o) {
  const std::string name = o.trainer.name.empty() ? std::string(kTrainerNames.name(Trainer::kMegatron)) : o.trainer.name;
  o.trainer = as_written(catalog.trainer(name));
}

JobSettings job_settings(const JobSettingsRequest& r) {
  JobSettings j;
  if (r.attention) j.attention = kAttentionKernelNames.parse_field(*r.attention, "attention");
  if (r.precision) j.precision = kMatmulPrecisionNames.parse_field(*r.precision, "precision");
  if (const auto d = switch_value(r.dropout, "dropout")) j.dropout = *d;
  return j;
}

std::string describe_spelled(const Infeasibility& why, std::string (*spell)(std::string_view field), const char* lead) {
  std::string out = why.reason;
  const char* separator = lead;
  for (const auto& c : why.changes) {
    out += separator;
    separator = ", or ";
    if (!c.number && !c.text) {  // a change of kind rather than of value: the note says it
      out += c.note + " (" + spell(c.field) + ")";
      continue;
    }
    if (c.field == "layers" && c.number) {  // no option sets the depth alone: the change reads as words
      out += "a depth of " + std::to_string(*c.number) + " layers (" + c.note + ")";
      continue;
    }
    out += spell(c.field) + " " + (c.number ? std::to_string(*c.number) : *c.text);
    if (!c.note.empty()) out += " (" + c.note + ")";
  }
  return out;
}

}  // namespace isoflop::parallel
