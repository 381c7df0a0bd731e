// The `loss` document: answering the question, and the human page.
#include "doc/loss_document.hpp"

#include <algorithm>

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
        // The convention the law counts N in ("non-embedding" for Kaplan's and DeepSeek's): 70B total is not
        // 70B non-embedding.
        {"parameters", units::format_count(e.params, 4) + (e.parameters.empty() ? "" : " (" + e.parameters + ")")},
        {"tokens", units::format_count(e.tokens, 4)},
        {"compute (6ND)", units::format_scientific(e.flops, 4) + " FLOPs"}};
    if (e.unique_tokens) kv.emplace_back("unique tokens", units::format_count(*e.unique_tokens, 4));
    if (e.epochs) kv.emplace_back("epochs", units::format_significant(*e.epochs, 4));
    kv.emplace_back("loss", units::format_significant(e.loss, 6));
    std::string out = report::render_key_values(kv);
    if (e.unique_tokens && !e.note.empty()) out += "  note: " + e.note + "\n";  // where the decay comes from
    if (!e.extrapolation.empty()) out += "  note: " + e.extrapolation + "\n";
    return out;
  }
  report::TextTable t({"law", "loss", "N counts", "fitted on"}, {false, true, false, false});
  for (const auto& e : d.losses) t.add_row({e.law, units::format_significant(e.loss, 6), e.parameters, e.dataset});
  std::string out = t.render();
  // Losses on different data (and tokenizers) are different units of difficulty; N under another convention is
  // another model. Say so where the rows mix them.
  const auto mixed = [&](std::string scaling::LossEstimate::*member) {
    return std::any_of(d.losses.begin(), d.losses.end(),
                       [&](const auto& e) { return e.*member != d.losses.front().*member; });
  };
  if (mixed(&scaling::LossEstimate::dataset))
    out += "  note: these laws were fitted on different data; their losses compare only within one dataset\n";
  if (mixed(&scaling::LossEstimate::parameters))
    out +=
        "  note: N is non-embedding parameters for some laws and total for others; the same N is not the same "
        "model\n";
  for (const auto& e : d.losses)
    if (!e.extrapolation.empty()) out += "  note: " + e.law + ": " + e.extrapolation + "\n";
  for (const auto& s : d.skipped) out += "  skipped " + s.law + ": " + s.reason + "\n";
  return out;
}

}  // namespace isoflop::doc
