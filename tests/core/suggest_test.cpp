// Tests for lib/core/suggest: edit distance and "did you mean".
#include "core/suggest.hpp"

#include <doctest/doctest.h>

using namespace isoflop;

TEST_CASE("edit distance counts insertions, deletions, substitutions and transpositions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("flops", "flops") == 0);
  CHECK(edit_distance("flop", "flops") == 1);
  CHECK(edit_distance("folps", "flops") == 1);
  CHECK(edit_distance("kitten", "sitting") == 3);
  CHECK(edit_distance("ABC", "abc") == 0);
}

TEST_CASE("closest match suggests plausible typos only") {
  const std::vector<std::string> names = {"optimal", "loss", "catalog", "plan"};
  CHECK(closest_match("optimla", names) == "optimal");
  CHECK(closest_match("los", names) == "loss");
  CHECK(closest_match("zzzzzzzz", names) == "");
  CHECK(did_you_mean("catlog", names) == " (did you mean 'catalog'?)");
  CHECK(join({"a", "b"}) == "a, b");
  // In a sentence: the last two joined by "and".
  CHECK(join_words({}) == "");
  CHECK(join_words({"vpp"}) == "vpp");
  CHECK(join_words({"flops", "time"}) == "flops and time");
  CHECK(join_words({"vpp", "zero", "recompute"}) == "vpp, zero and recompute");
}
