// Tests for lib/scaling/band: every applicable law answers, the others are listed with a reason.
#include <doctest/doctest.h>

#include "core/error.hpp"
#include "scaling/allocate.hpp"
#include "scaling/laws_fixture.hpp"

using namespace isoflop::scaling;

TEST_CASE("a budget is answered by every total-parameter law, and non-embedding laws are left out with the reason") {
  const auto& laws = isoflop::test::shipped_catalog().laws;
  REQUIRE(laws.front().parameters == "total");
  const AllocationBand band = allocation_band(laws, 5.76e23);
  CHECK(band.parameters == "total");
  CHECK(band.laws.size() + band.skipped.size() == laws.size());
  for (const auto& a : band.laws) CHECK(a.law != "kaplan-2020");
  // Kaplan et al. 2020 count non-embedding parameters, DeepSeek LLM 2024 non-embedding FLOPs per token.
  REQUIRE(band.skipped.size() == 2);
  for (const auto& s : band.skipped) {
    CHECK((s.law == "kaplan-2020" || s.law == "deepseek-2024"));
    CHECK(s.reason.find("non-embedding") != std::string::npos);
  }
  CHECK(band.params_min <= 3.22e10);
  CHECK(band.params_max >= 6.7e10);
  for (const auto& a : band.laws) CHECK(a.flops == 5.76e23);
}

TEST_CASE("a target loss skips allocation-only laws and unreachable targets") {
  const auto& laws = isoflop::test::shipped_catalog().laws;
  const AllocationBand band = allocation_band(laws, BandQuery::kTargetLoss, 2.0);
  for (const auto& a : band.laws) CHECK(a.loss);
  bool approach1_skipped = false;
  for (const auto& s : band.skipped) approach1_skipped |= s.law == "chinchilla-approach1";
  CHECK(approach1_skipped);
  // A target below every law's floor has no solution under any: infeasible (exit 1), not invalid input.
  CHECK_THROWS_AS(allocation_band(laws, BandQuery::kTargetLoss, 1e-3), isoflop::InfeasibleError);
  // Laws that cannot take the query at all (only allocation tables): invalid input.
  std::vector<isoflop::catalog::LawSpec> tables;
  for (const auto& l : laws)
    if (l.name == "chinchilla-approach1") tables.push_back(l);
  REQUIRE(tables.size() == 1);
  CHECK_THROWS_AS(allocation_band(tables, BandQuery::kTargetLoss, 2.0), isoflop::InputError);
  try {
    allocation_band(tables, BandQuery::kTargetLoss, 2.0);
  } catch (const isoflop::InfeasibleError&) {
    FAIL("an allocation-only band is no infeasible target");
  } catch (const isoflop::InputError&) {
  }
}

TEST_CASE("Kaplan only on request: a band led by Kaplan holds the non-embedding laws, and losses of other datasets are flagged") {
  const auto& laws = isoflop::test::shipped_catalog().laws;
  std::vector<isoflop::catalog::LawSpec> kaplan_first;
  for (const auto& l : laws)
    if (l.name == "kaplan-2020") kaplan_first.insert(kaplan_first.begin(), l);
    else kaplan_first.push_back(l);
  const AllocationBand k = allocation_band(kaplan_first, 5.76e23);
  CHECK(k.parameters == "non-embedding");
  for (const auto& a : k.laws) CHECK((a.law == "kaplan-2020" || a.law == "deepseek-2024"));
  // The default band's losses come from MassiveText (Chinchilla, Epoch) and C4/OSCAR (Muennighoff): a note says so.
  const AllocationBand band = allocation_band(laws, 5.76e23);
  REQUIRE(band.notes.size() == 1);
  CHECK(band.notes.front().find("not comparable") != std::string::npos);
  CHECK(band.notes.front().find("C4 and OSCAR") != std::string::npos);
  // One dataset, one note fewer.
  std::vector<isoflop::catalog::LawSpec> massive;
  for (const auto& l : laws)
    if (l.dataset.rfind("MassiveText", 0) == 0) massive.push_back(l);
  CHECK(allocation_band(massive, 5.76e23).notes.empty());
  // A law saved by fit names no dataset: said so, not left blank ("mylaw: )").
  auto unnamed = massive;
  unnamed.push_back(massive.front());
  unnamed.back().name = "mylaw";
  unnamed.back().dataset.clear();
  const auto notes = allocation_band(unnamed, 5.76e23).notes;
  REQUIRE(notes.size() == 1);
  CHECK(notes.front().find("mylaw: dataset not stated)") != std::string::npos);
}
