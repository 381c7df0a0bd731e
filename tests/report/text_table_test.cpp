// Tests for lib/report/text_table: widths in UTF-8 code points, so columns with "±" and "×" still align.
#include "report/text_table.hpp"

#include <doctest/doctest.h>

#include <string>

#include "report/svg_marks.hpp"

namespace isoflop::report {
namespace {

TEST_CASE("code points count a multi-byte character once") {
  CHECK(code_points("") == 0);
  CHECK(code_points("tp") == 2);
  CHECK(code_points("±3 ×") == 4);  // ± and × are two bytes each in UTF-8
  CHECK(svg::text_width("±3 ×", 10) == svg::text_width("ab c", 10));
}

TEST_CASE("a table pads by code points: a column with ± lines up with one without") {
  TextTable t({"name", "value"});
  t.add_row({"a", "1.0 ± 0.1"});
  t.add_row({"b", "12.25 abc"});
  CHECK(t.render() ==
        "name      value\n"
        "----  ---------\n"
        "a     1.0 ± 0.1\n"
        "b     12.25 abc\n");
}

TEST_CASE("a cell from the input prints as text: its newline or terminal escape is written as an escape") {
  TextTable t({"name", "value"}, {false, false});
  t.add_row({"evil\x1b[31mred", "two\nlines"});
  CHECK(t.render() ==
        "name             value\n"
        "---------------  ----------\n"
        "evil\\x1b[31mred  two\\nlines\n");
}

}  // namespace
}  // namespace isoflop::report
