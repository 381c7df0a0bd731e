// Tests for reading runs and curves from CSV text: derived columns, selection, and located errors.
#include "fit/runs.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "fit/csv_table.hpp"
#include "fit/law_yaml.hpp"
#include "support/expect_close.hpp"

namespace isoflop::fit {

TEST_CASE("runs: tokens derived from flops, flops from tokens") {
  const auto a = parse_runs_csv("params,flops,loss\n1e8,6e18,3.1\n", "a.csv");
  REQUIRE(a.size() == 1);
  EXPECT_CLOSE(a[0].tokens, 1e10, 1e-12);
  CHECK(a[0].line == 2);
  const auto b = parse_runs_csv("# comment\n\nloss,tokens,params\r\n3.1,1e10,1e8\r\n", "b.csv");
  EXPECT_CLOSE(b[0].flops, 6e18, 1e-12);
  CHECK(b[0].line == 4);
  RunColumns c;
  c.params = "N";
  c.loss = "final_loss";
  const auto d = parse_runs_csv("N,\"tokens\",final_loss,note\n1e8,1e10,3.1,\"a, b\"\n", "d.csv", c);
  CHECK(d[0].loss == 3.1);
}

TEST_CASE("runs: with both columns a row's empty cell is derived from the other, and the two must agree") {
  const auto r =
      parse_runs_csv("run,params,tokens,flops,loss\na,1e8,1e10,,3.1\nb,1e8,,6e18,3.0\n,1e8,1e10,7e18,2.9\n", "r.csv");
  REQUIRE(r.size() == 3);
  EXPECT_CLOSE(r[0].flops, 6e18, 1e-12);
  EXPECT_CLOSE(r[1].tokens, 1e10, 1e-12);
  CHECK(r[2].flops == 7e18);  // given both: as given, within the factor of 6ND (a row may leave its run id empty)
  // Ten times 6ND is still a count of other terms; past it a unit has gone wrong.
  CHECK_NOTHROW(parse_runs_csv("params,tokens,flops,loss\n1e8,1e10,5.9e19,3.1\n", "ok.csv"));
  CHECK_THROWS_WITH_AS(parse_runs_csv("params,tokens,flops,loss\n1e8,1e10,6.1e19,3.1\n", "x.csv"),
                       doctest::Contains("x.csv:2: column 3 ('flops'): 6.1e19 FLOPs is 10.2 x 6·params·tokens = 6e18"),
                       InputError);
  CHECK_THROWS_WITH_AS(parse_runs_csv("params,tokens,flops,loss\n1e8,1e10,5.9e17,3.1\n", "y.csv"),
                       doctest::Contains("disagree by more than a factor 10"), InputError);
  CHECK_THROWS_WITH_AS(parse_runs_csv("run,params,tokens,loss\na,1e8,1e10,3.1\na,1e8,2e10,3.0\n", "d.csv"),
                       doctest::Contains("d.csv:3: column 1 ('run'): run 'a' is given twice (first at line 2)"),
                       InputError);
}

TEST_CASE("bad run tables name file, line and column") {
  struct Case {
    const char* csv;
    const char* message;
  };
  const Case cases[] = {
      {"params,tokens\n1,2\n", "r.csv:1: missing column 'loss'"},
      {"params,loss\n1,2\n", "'tokens' or 'flops'"},
      {"params,tokens,loss,tokens\n1,2,3,4\n", "r.csv:1: column 4: duplicate column name 'tokens'"},
      {"params,tokens,loss\n1e8,1e10,3\n1e8,abc,3\n", "r.csv:3: column 2 ('tokens'): 'abc' is not a number"},
      {"params,tokens,loss\n1e8,1e10,-3\n", "r.csv:2: column 3 ('loss'): -3 must be positive"},
      {"params,tokens,loss\n1e8,1e10,0\n", "column 3 ('loss'): 0 must be positive"},
      {"params,tokens,loss\n1e8,,3\n", "r.csv:2: column 2 ('tokens'): empty value"},
      {"params,tokens,loss\n1e8,1e10\n", "r.csv:2: 2 cells but the header has 3 columns"},
      {"params,tokens,loss\n1e8,1e10,nan\n", "'nan' is not a number"},
      {"params,tokens,loss\n1e8,1e10,\"3\n", "r.csv:2: unterminated"},
      {"", "empty file"},
      // Found by fuzzing: a derived column out of double's range (6·N·D = inf, C/(6·N) = 0).
      {"params,tokens,loss\n3e7,9e306,3\n", "r.csv:2: column 2 ('tokens'): 6·params·tokens is out of range"},
      {"params,flops,loss\n1e300,1e-300,3\n", "r.csv:2: column 2 ('flops'): flops/(6·params) is out of range"},
      // ... and C/(6·N) past the largest double (6e18 FLOPs of 1e-300 parameters).
      {"params,flops,loss\n1e-300,6e18,3\n", "r.csv:2: column 2 ('flops'): flops/(6·params) is out of range"},
      {"params,tokens,loss\n", "no runs"},
      {"parms,tokens,loss\n1,1,1\n", "did you mean 'parms'"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.csv);
    CHECK_THROWS_WITH_AS(parse_runs_csv(c.csv, "r.csv"), doctest::Contains(c.message), InputError);
  }
}

TEST_CASE("selection: compute range, highest-loss drop, canonical order") {
  std::vector<Run> runs = {{3, 1, 3e20, 2.0, 2}, {1, 1, 1e19, 4.0, 3}, {2, 1, 1e20, 3.0, 4}, {4, 1, 1e21, 1.5, 5}};
  Selection s;
  s.drop_highest_loss = 1;
  auto kept = select_runs(runs, s);
  REQUIRE(kept.size() == 3);
  CHECK(kept[0].params == 2);  // sorted by params; the 4.0 loss dropped
  s = {};
  s.min_flops = 5e19;
  s.max_flops = 5e20;
  CHECK(select_runs(runs, s).size() == 2);
  s = {};
  s.drop_highest_loss = 4;
  CHECK_THROWS_AS(select_runs(runs, s), InputError);
  s = {};
  s.min_flops = 2;
  s.max_flops = 1;
  CHECK_THROWS_AS(select_runs(runs, s), InputError);
}

TEST_CASE("curves: params per row, or joined from the runs table by run id") {
  const auto a = parse_curves_csv("run,params,tokens,loss\nx,1e8,1e9,4\nx,1e8,2e9,3.5\n", "c.csv", {});
  CHECK(a.size() == 2);
  const auto b = parse_curves_csv("run,tokens,loss\nx,1e9,4\n", "c.csv", {}, "run,params,tokens,loss\nx,1e8,2e9,3.5\n",
                                  "r.csv");
  CHECK(b[0].params == 1e8);
  CHECK_THROWS_WITH_AS(parse_curves_csv("run,tokens,loss\ny,1e9,4\n", "c.csv", {}, "run,params\nx,1e8\n", "r.csv"),
                       doctest::Contains("c.csv:2: column 1 ('run'): run 'y' is not in r.csv"), InputError);
  CHECK_THROWS_WITH_AS(parse_curves_csv("run,params,tokens,loss\nx,1e8,1e9,4\nx,2e8,2e9,3\n", "c.csv", {}),
                       doctest::Contains("c.csv:3: column 2 ('params'): run 'x' changes"), InputError);
}

TEST_CASE("law names and catalog YAML") {
  CHECK_NOTHROW(validate_law_name("my-sweep_2.1"));
  CHECK_THROWS_AS(validate_law_name("My Sweep"), InputError);
  CHECK_THROWS_AS(validate_law_name("-x"), InputError);
  Approach3Result r;
  r.E = 1.69, r.A = 406.4, r.B = 410.7, r.alpha = 0.34, r.beta = 0.28;
  const std::string y = law_catalog_yaml(r, "mine", "fit of \"runs.csv\"");
  CHECK(y.find("kind: parametric\n") != std::string::npos);
  CHECK(y.find("    alpha: 0.34000000000000002\n") != std::string::npos);
  CHECK(y.find("source: \"fit of \\\"runs.csv\\\"\"") != std::string::npos);
}

}  // namespace isoflop::fit
