// The `loss` document: answering the question, and the human page.
#include "doc/loss_document.hpp"

#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::doc {

LossDocument loss_document(const catalog::Catalog& catalog, const scaling::LossRequest& request) {
  scaling::LossAnswer answer = scaling::answer_loss(catalog, request);
  return {request, std::move(answer.losses), std::move(answer.skipped)};
}

std::string render_loss(const LossDocument& d) {
  if (d.losses.size() == 1 && d.skipped.empty()) {
    const auto& e = d.losses.front();
    std::vector<std::pair<std::string, std::string>> kv = {
        {"law", e.law},
        {"parameters", units::format_count(e.params, 4)},
        {"tokens", units::format_count(e.tokens, 4)},
        {"compute (6ND)", units::format_scientific(e.flops, 4) + " FLOPs"}};
    if (e.unique_tokens) kv.emplace_back("unique tokens", units::format_count(*e.unique_tokens, 4));
    if (e.epochs) kv.emplace_back("epochs", units::format_significant(*e.epochs, 4));
    kv.emplace_back("loss", units::format_significant(e.loss, 6));
    return report::render_key_values(kv);
  }
  report::TextTable t({"law", "loss"}, {false, true});
  for (const auto& e : d.losses) t.add_row({e.law, units::format_significant(e.loss, 6)});
  std::string out = t.render();
  for (const auto& s : d.skipped) out += "  skipped " + s.law + ": " + s.reason + "\n";
  return out;
}

}  // namespace isoflop::doc
