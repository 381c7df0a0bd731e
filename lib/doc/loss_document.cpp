// The `loss` document: JSON and the human page.
#include "doc/loss_document.hpp"

#include "report/text_table.hpp"
#include "units/format.hpp"

namespace isoflop::scaling {

using doc::Json;
using doc::or_null;
using doc::read;

void to_json(Json& j, const LossRequest& r) {
  j = Json::object();
  j["params"] = r.params;
  j["tokens"] = r.tokens;
  j["unique_tokens"] = or_null(r.unique_tokens);
  to_json(j, r.laws);
}
void from_json(const Json& j, LossRequest& r) {
  read(j, "params", r.params);
  read(j, "tokens", r.tokens);
  read(j, "unique_tokens", r.unique_tokens);
  from_json(j, r.laws);
}

void to_json(Json& j, const LossEstimate& e) {
  j = Json{{"law", e.law},
           {"params", e.params},
           {"tokens", e.tokens},
           {"flops", e.flops},
           {"unique_tokens", or_null(e.unique_tokens)},
           {"epochs", or_null(e.epochs)},
           {"loss", e.loss}};
}
void from_json(const Json& j, LossEstimate& e) {
  read(j, "law", e.law);
  read(j, "params", e.params);
  read(j, "tokens", e.tokens);
  read(j, "flops", e.flops);
  read(j, "unique_tokens", e.unique_tokens);
  read(j, "epochs", e.epochs);
  read(j, "loss", e.loss);
}

}  // namespace isoflop::scaling

namespace isoflop::doc {

LossDocument loss_document(const catalog::Catalog& catalog, const scaling::LossRequest& request) {
  scaling::LossAnswer answer = scaling::answer_loss(catalog, request);
  return {request, std::move(answer.losses), std::move(answer.skipped)};
}

void to_json(Json& j, const LossDocument& d) {
  j = Json::object();
  j["schema"] = schema_id("loss");
  j["inputs"] = d.inputs;
  j["losses"] = d.losses;
  j["skipped"] = d.skipped;
}

void from_json(const Json& j, LossDocument& d) {
  read(j, "inputs", d.inputs);
  read_array(j, "losses", d.losses);
  read_array(j, "skipped", d.skipped);
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
