// Tests for lib/core/enum_names: ISOFLOP_NAMED_ENUM declares the enumerators in the order written, with the
// table in the same order; names round-trip; an unknown name is refused naming the field and what is accepted.
#include "core/enum_names.hpp"

#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"

namespace isoflop::test_enum {

ISOFLOP_NAMED_ENUM(Colour, (kRed, "red"), (kGreen, "green"), (kDeepBlue, "deep-blue"));
ISOFLOP_NAMED_ENUM(Single, (kOnly, "only"));
// More items than any enum of the library, to exercise the expansion's depth.
ISOFLOP_NAMED_ENUM(Many, (k0, "0"), (k1, "1"), (k2, "2"), (k3, "3"), (k4, "4"), (k5, "5"), (k6, "6"), (k7, "7"),
                   (k8, "8"), (k9, "9"), (k10, "10"), (k11, "11"), (k12, "12"), (k13, "13"), (k14, "14"),
                   (k15, "15"), (k16, "16"), (k17, "17"), (k18, "18"), (k19, "19"), (k20, "20"), (k21, "21"),
                   (k22, "22"), (k23, "23"), (k24, "24"), (k25, "25"), (k26, "26"), (k27, "27"), (k28, "28"),
                   (k29, "29"), (k30, "30"), (k31, "31"), (k32, "32"), (k33, "33"), (k34, "34"), (k35, "35"),
                   (k36, "36"), (k37, "37"), (k38, "38"), (k39, "39"));

// Checked by the compiler: the enumerators take 0, 1, 2 … in the order written and the table follows it.
static_assert(static_cast<int>(Colour::kRed) == 0 && static_cast<int>(Colour::kDeepBlue) == 2);
static_assert(kColourNames.entries.size() == 3);
static_assert(kColourNames.entries[1].first == Colour::kGreen && kColourNames.entries[1].second == "green");
static_assert(kSingleNames.entries.size() == 1);
static_assert(kManyNames.entries.size() == 40 && static_cast<int>(Many::k39) == 39);

}  // namespace isoflop::test_enum

using namespace isoflop;
using namespace isoflop::test_enum;

TEST_CASE("every enumerator of a named enum round-trips through its name") {
  for (const auto& [value, name] : kColourNames.entries) CHECK(kColourNames.parse(name, "colour") == value);
  CHECK(kColourNames.name(Colour::kDeepBlue) == "deep-blue");
  CHECK(kSingleNames.parse("only", "single") == Single::kOnly);
  for (int i = 0; i < 40; ++i)
    CHECK(kManyNames.name(static_cast<Many>(i)) == std::to_string(i));  // the n-th name is n's
}

TEST_CASE("an unknown name is refused, naming the field and the accepted names") {
  CHECK_THROWS_WITH_AS(kColourNames.parse("gren", "paint.colour"),
                       doctest::Contains("paint.colour: 'gren' is not one of red|green|deep-blue"), InputError);
  CHECK_THROWS_AS(kColourNames.parse_field("", "colour"), FieldError);
}
