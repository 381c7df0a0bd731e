// The `optimal` document: answering the question, and the human page.
#include "doc/optimal_document.hpp"

#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {

OptimalDocument optimal_document(const catalog::Catalog& catalog, const scaling::OptimalRequest& request) {
  scaling::OptimalAnswer answer = scaling::answer_optimal(catalog, request);
  return {request, std::move(answer.allocations), std::move(answer.skipped), std::move(answer.notes)};
}

namespace {

std::string loss_text(const scaling::Allocation& a) {
  return a.loss ? units::format_significant(*a.loss, 5) : std::string("n/a");
}

std::string render_one(const scaling::Allocation& a) {
  std::vector<std::pair<std::string, std::string>> kv = {
      {"law", a.law},
      {"compute", units::format_scientific(a.flops, 4) + " FLOPs"},
      {"parameters", units::format_count(a.params, 4)},
      {"tokens", units::format_count(a.tokens, 4)},
      {"tokens/param", units::format_significant(a.tokens_per_param, 4)},
      {"loss", loss_text(a)}};
  if (a.unique_tokens) {
    kv.emplace_back("unique tokens", units::format_count(*a.unique_tokens, 4));
    if (a.epochs) kv.emplace_back("epochs", units::format_significant(*a.epochs, 4));
  }
  if (a.inference_tokens && a.inference_flops && a.total_flops) {
    kv.emplace_back("inference tokens", units::format_count(*a.inference_tokens, 4));
    kv.emplace_back("inference compute", units::format_scientific(*a.inference_flops, 4) + " FLOPs");
    kv.emplace_back("total compute", units::format_scientific(*a.total_flops, 4) + " FLOPs");
  }
  if (a.compute_optimal_params && a.compute_optimal_tokens && a.compute_optimal_total_flops)
    kv.emplace_back("compute-optimal model", units::format_count(*a.compute_optimal_params, 4) + " params, " +
                                                 units::format_count(*a.compute_optimal_tokens, 4) + " tokens, " +
                                                 units::format_scientific(*a.compute_optimal_total_flops, 4) +
                                                 " FLOPs total");
  kv.emplace_back("method", a.method);
  return report::render_key_values(kv);
}

}  // namespace

std::string render_optimal(const OptimalDocument& d) {
  std::string out;
  if (d.allocations.size() == 1 && d.skipped.empty()) {
    out = render_one(d.allocations.front());
  } else {
    report::TextTable table({"law", "compute (FLOPs)", "params", "tokens", "tokens/param", "loss", "method"},
                            {false, true, true, true, true, true, false});
    for (const auto& a : d.allocations)
      table.add_row({a.law, units::format_scientific(a.flops, 4), units::format_count(a.params, 4),
                     units::format_count(a.tokens, 4), units::format_significant(a.tokens_per_param, 4),
                     loss_text(a), a.method});
    out = table.render();
    for (const auto& s : d.skipped) out += "  skipped " + s.law + ": " + s.reason + "\n";
  }
  for (const auto& n : d.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace isoflop::doc
