// Tests for lib/doc/layout_document: the layout document round-trips through its struct, the sections read
// back from a plan document as well, and bad documents name the file and the JSON path.
#include "doc/layout_document.hpp"

#include <doctest/doctest.h>

#include "catalog/catalog.hpp"
#include "core/error.hpp"
#include "doc/layout_json.hpp"
#include "report/output.hpp"

namespace isoflop {
namespace {

doc::LayoutDocument mt_nlg(int gpus, long long global_batch, const parallel::SearchOptions& options = {}) {
  const catalog::Catalog cat = catalog::load_catalog();
  parallel::JobSpec job;
  job.architecture = cat.model("mt-nlg-530b").architecture;
  job.global_batch = global_batch;
  parallel::ClusterRequest request;
  request.gpu = "a100-sxm4-80gb";
  request.gpus = gpus;
  doc::LayoutInputs inputs;
  inputs.arch = "mt-nlg-530b";
  inputs.cluster = request;
  inputs.global_batch = global_batch;
  return doc::make_layout_document(inputs, job, parallel::resolve_cluster(cat, request).spec, options);
}

}  // namespace

TEST_CASE("a layout document, feasible or not, is a fixed point of to_json and from_json") {
  parallel::SearchOptions pinned;
  pinned.pins.pp = 35;
  pinned.pins.recompute = parallel::Recompute::kSelective;
  pinned.pins.sequence_parallel = true;
  pinned.max_tp = 8;
  for (const auto& d : {mt_nlg(2240, 1920), mt_nlg(2240, 1920, pinned), mt_nlg(8, 8)}) {
    const doc::Json j = d;
    const auto back = j.get<doc::LayoutDocument>();
    CHECK(back == d);
    CHECK(report::to_json_text(doc::Json(back)) == report::to_json_text(j));
  }
  const auto none = mt_nlg(8, 8);
  CHECK(none.sections.result.infeasible);
  CHECK(doc::Json(none)["layouts"].empty());
  CHECK(doc::Json(none)["infeasible"]["changes"][0]["field"] == "gpus");
}

TEST_CASE("relayout: a plan document's sections re-run give its layouts and pins re-rank") {
  const auto d = mt_nlg(2240, 1920);
  doc::Json plan = doc::Json::object();
  plan["schema"] = doc::schema_id("plan");
  plan["inputs"] = doc::Json::object();
  doc::write_layout_sections(plan, d.sections);
  const doc::SourceDocument source = doc::parse_document("plan.json", report::to_json_text(plan));
  CHECK(doc::layout_sections_from(source) == d.sections);
  const auto again = doc::relayout(source, nullptr);
  CHECK(again.sections.result == d.sections.result);
  CHECK(again.inputs.from == "plan.json");
  const auto pp35 = doc::relayout(source, [](parallel::SearchOptions& o) { o.pins.pp = 35; });
  for (const auto& l : pp35.sections.result.layouts) CHECK(l.layout.pp == 35);
  CHECK(pp35.sections.result.layouts.front().time.step_time_s >=
        d.sections.result.layouts.front().time.step_time_s);
}

TEST_CASE("bad layout sections name the file and the JSON path") {
  doc::Json j = mt_nlg(2240, 1920);
  auto message = [&](const doc::Json& broken) -> std::string {
    try {
      doc::layout_sections_from(doc::parse_document("l.json", report::to_json_text(broken)));
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  doc::Json broken = j;
  broken["layouts"][0].erase("tp");
  CHECK(message(broken) == "l.json: layouts[0].tp: missing");
  broken = j;
  broken["layouts"][0]["recompute"] = "most";
  CHECK(message(broken).find("l.json: layouts[0].recompute: 'most' is not one of none|selective|full") == 0);
  broken = j;
  broken["search"]["options"]["pins"]["zero_stage"] = 7;
  CHECK(message(broken) ==
        "l.json: search.options.pins.zero_stage: 7 is out of range for the ZeRO stage; accepted: 0 to 3");
  broken = j;
  broken["layouts"][0]["tp"] = 4294967297LL;
  CHECK(message(broken).find("l.json: layouts[0].tp: 4294967297 is out of range for the ") == 0);
  broken = j;
  broken["schema"] = "isoflop/cost/v2";
  CHECK(message(broken).find("l.json") == 0);
}

TEST_CASE("a layout document written before the per-layer overhead reads with it at 0") {
  // Such a document has no layer_overhead_s in its step breakdowns or in its accelerator's calibration.
  doc::LayoutDocument d = mt_nlg(2240, 1920);
  d.sections.cluster.accelerator.layer_overhead_s = 300e-6;  // would be read back if the key were there
  doc::Json j = d;
  REQUIRE(j.at("cluster").at("accelerator").at("calibration").contains("layer_overhead_s"));
  j["cluster"]["accelerator"]["calibration"].erase("layer_overhead_s");
  for (auto& layout : j.at("layouts")) {
    REQUIRE(layout.at("step_breakdown").contains("layer_overhead_s"));
    layout["step_breakdown"].erase("layer_overhead_s");
  }
  const auto back = j.get<doc::LayoutDocument>();
  CHECK(back.sections.cluster.accelerator.layer_overhead_s == 0);
  REQUIRE_FALSE(back.sections.result.layouts.empty());
  CHECK(back.sections.result.layouts[0].time.breakdown.layer_overhead_s == 0);
  CHECK(back.sections.result.layouts[0].time.step_time_s == d.sections.result.layouts[0].time.step_time_s);
}

}  // namespace isoflop
