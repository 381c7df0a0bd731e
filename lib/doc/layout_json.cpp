// JSON of layouts and pins: one key per knob of the table of dimensions.
#include "doc/layout_json.hpp"

#include <utility>

namespace isoflop::parallel {

using doc::Json;

Json knob_json(const Dimension& d, int value) {
  switch (d.type) {
    case ValueType::kRecompute:
      return format_value(d, value);
    case ValueType::kSwitch:
      return value != 0;
    case ValueType::kInteger:
      break;
  }
  return value;
}

int read_knob(const Json& value, const Dimension& d) {
  switch (d.type) {
    case ValueType::kRecompute: {
      if (!value.is_string()) doc::fail_at(value, "must be one of " + join(kRecomputeNames.names(), "|"));
      const std::string text = value.get<std::string>();
      for (const auto& [r, n] : kRecomputeNames.entries)
        if (n == text) return static_cast<int>(r);
      doc::fail_at(value, "'" + text + "' is not one of " + join(kRecomputeNames.names(), "|"));
    }
    case ValueType::kSwitch:
      if (!value.is_boolean()) doc::fail_at(value, "must be true or false");
      return value.get<bool>() ? 1 : 0;
    case ValueType::kInteger:
      break;
  }
  if (!value.is_number_integer()) doc::fail_at(value, "must be an integer");
  if (value.get<long long>() < d.min || value.get<long long>() > d.max)
    doc::fail_at(value, value.dump() + " is out of range for the " + std::string(d.meaning) +
                            "; accepted: " + std::to_string(d.min) + " to " + std::to_string(d.max));
  return value.get<int>();
}

void to_json(Json& j, const Layout& l) {
  j = Json::object();
  for (const auto& d : dimensions()) j[std::string(d.name)] = knob_json(d, d.get(l));
}

void from_json(const Json& j, Layout& l) {
  doc::require_object(j);
  l = Layout{};
  for (const auto& d : dimensions()) d.set(l, read_knob(j.at(std::string(d.name)), d));
}

void to_json(Json& j, const LayoutPins& p) {
  j = Json::object();
  for (const auto& d : dimensions()) {
    const auto v = d.pinned(p);
    j[std::string(d.name)] = v ? knob_json(d, *v) : Json(nullptr);
  }
}

void from_json(const Json& j, LayoutPins& p) {
  doc::require_object(j);
  p = LayoutPins{};
  for (const auto& d : dimensions()) {
    const Json& v = j.at(std::string(d.name));
    d.pin(p, v.is_null() ? std::nullopt : std::optional<int>(read_knob(v, d)));
  }
}

}  // namespace isoflop::parallel
