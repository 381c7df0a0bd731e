// Tests for lib/parallel/dimensions: the table of knobs reads and writes every field of Layout and LayoutPins,
// its values round-trip through text, and bad values are FieldErrors naming the knob.
#include "parallel/dimensions.hpp"

#include <doctest/doctest.h>

#include <set>

#include "core/error.hpp"

using namespace isoflop;
using namespace isoflop::parallel;

TEST_CASE("the table names each knob once, in the search's order, the family first") {
  std::set<std::string_view> names;
  std::string order;
  for (const auto& d : dimensions()) {
    names.insert(d.name);
    order += std::string(d.name) + " ";
  }
  CHECK(names.size() == kDimensionCount);
  CHECK(order ==
        "tp pp cp dp ep vpp first_stage_layers last_stage_layers micro_batch zero_stage recompute sequence_parallel ");
  CHECK(family_dimensions() == 4);
  CHECK(find_dimension("zero_stage")->label == "ZeRO");
  CHECK(find_dimension("zero") == nullptr);
}

TEST_CASE("get and set reach every field of Layout and pin and pinned every field of LayoutPins") {
  Layout l;
  LayoutPins p;
  const int values[kDimensionCount] = {2, 3, 9, 4, 5, 6, 10, 11, 7, 3, 1, 1};
  for (size_t i = 0; i < kDimensionCount; ++i) {
    const Dimension& d = dimensions()[i];
    const int v = values[i];
    d.set(l, v);
    CHECK(d.get(l) == v);
    d.pin(p, v);
    CHECK(d.pinned(p) == v);
  }
  CHECK(l.tp == 2);
  CHECK(l.pp == 3);
  CHECK(l.cp == 9);
  CHECK(l.dp == 4);
  CHECK(l.ep == 5);
  CHECK(l.vpp == 6);
  CHECK(l.first_stage_layers == 10);
  CHECK(l.last_stage_layers == 11);
  CHECK(l.micro_batch == 7);
  CHECK(l.zero_stage == 3);
  CHECK(l.recompute == Recompute::kSelective);
  CHECK(l.sequence_parallel);
  CHECK(p.tp == 2);
  CHECK(p.cp == 9);
  CHECK(p.last_stage_layers == 11);
  CHECK(p.recompute == Recompute::kSelective);
  CHECK(p.sequence_parallel == true);
  for (const auto& d : dimensions()) d.pin(p, std::nullopt);
  CHECK(p == LayoutPins{});
}

TEST_CASE("values round-trip through text and bad text or out-of-range values name the knob") {
  for (const auto& d : dimensions())
    for (int v = d.min; v <= std::min(d.max, d.min + 4); ++v) CHECK(parse_value(d, format_value(d, v)) == v);
  CHECK(format_value(*find_dimension("recompute"), 2) == "full");
  CHECK(format_value(*find_dimension("sequence_parallel"), 0) == "off");
  auto message = [](const char* name, const char* text) -> std::string {
    try {
      parse_value(*find_dimension(name), text);
    } catch (const FieldError& e) {
      CHECK(e.field() == name);
      return e.message();
    }
    return "no error";
  };
  CHECK(message("zero_stage", "4") == "4 is not a ZeRO stage; accepted: 0, 1, 2, 3");
  CHECK(message("micro_batch", "0") == "must be at least 1, got 0");
  CHECK(message("tp", "8x") == "'8x' is not an integer");
  CHECK(message("recompute", "some") == "'some' is not one of none|selective|full");
  CHECK(message("sequence_parallel", "maybe") == "'maybe' is not one of on|off");
}
