// The parallel knobs, spelled once: one table of dimensions (TP, PP, CP, DP, EP, VPP, first/last stage layers,
// micro-batch, ZeRO stage, recompute, sequence parallelism) with each knob's name, its accessors on Layout and LayoutPins, the values it
// accepts and how the search enumerates it. The search, the pins, the JSON and the tables walk this table.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "catalog/trainers.hpp"
#include "parallel/layout.hpp"

namespace isoflop::parallel {

// How a knob's value is written: an integer, a recompute mode by name, or a switch (on/off; JSON true/false).
enum class ValueType { kInteger, kRecompute, kSwitch };

// How the search enumerates a knob that is not pinned.
enum class Enumeration {
  kDivisors,  // the divisors of of(space, layout) up to up_to(space, layout)
  kDerived,   // the one value of(space, layout); a pin only filters it
  kRange,     // every value from min to max
  kDefault,   // the pin, else the one value of(space, layout)
};

// What the enumeration depends on: the job, the cluster and the search's limits.
struct SearchSpace {
  const JobSpec& job;
  const ClusterSpec& cluster;
  const catalog::TrainerRules& trainer;  // rules.loaded() false: no trainer (structural checks only)
  const LayoutPins& pins;
  int max_tp = 8;           // largest TP tried
  int max_cp = 1;           // largest CP tried
  int max_vpp = 4;          // largest number of virtual stages tried
  int max_micro_batch = 16; // largest micro-batch tried
};

struct Dimension {
  std::string_view name;     // the field: JSON key, pin, FieldError ("micro_batch")
  std::string_view label;    // table heading ("MB")
  std::string_view meaning;  // "sequences per micro-batch"
  ValueType type;
  int min, max;              // accepted values (as integers: recompute by its enum order, switches 0/1)
  bool family;               // part of the TP × PP × CP × DP family the search reports pruned (a prefix of the table)
  int (*get)(const Layout&);
  void (*set)(Layout&, int);
  std::optional<int> (*pinned)(const LayoutPins&);
  void (*pin)(LayoutPins&, std::optional<int>);
  Enumeration enumeration;
  long long (*of)(const SearchSpace&, const Layout&);     // kDivisors: the number divided; kDerived: the value
  long long (*up_to)(const SearchSpace&, const Layout&);  // kDivisors: the largest divisor tried
  bool (*admits)(const SearchSpace&, const Layout&);      // whether a candidate is tried; nullptr: all are
};

inline constexpr size_t kDimensionCount = 12;

// In the search's order (outermost first): tp, pp, cp, dp, ep, vpp, first_stage_layers, last_stage_layers,
// micro_batch, zero_stage, recompute, sequence_parallel.
const std::array<Dimension, kDimensionCount>& dimensions();

// How many leading dimensions form the TP × PP × CP × DP family.
size_t family_dimensions();

// A knob by its field name; nullptr when there is none.
const Dimension* find_dimension(std::string_view name);

// A value as text: "8", "full", "on".
std::string format_value(const Dimension& dimension, int value);
// Parses text ("8", "full", "on"/"off"); throws FieldError(dimension.name, …) naming what is accepted.
int parse_value(const Dimension& dimension, std::string_view text);
// Throws FieldError unless min ≤ value ≤ max.
void check_range(const Dimension& dimension, int value);

}  // namespace isoflop::parallel
