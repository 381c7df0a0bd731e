// isoflop loss: the predicted loss of N parameters trained on D tokens (optionally from U unique tokens).
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "core/error.hpp"
#include "doc/loss_document.hpp"

namespace isoflop::app {

int run_loss(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("loss"), args, {declared_options("loss"), law_options()});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  if (!vm.count("params")) throw InputError("loss: missing --params N (e.g. --params 70B)");
  if (!vm.count("tokens")) throw InputError("loss: missing --tokens D (e.g. --tokens 1.4T)");
  const scaling::LossRequest request{*get_count(vm, "params"), *get_count(vm, "tokens"),
                                     get_count(vm, "unique-tokens"), law_choice(vm)};
  const doc::LossDocument document = doc::loss_document(load_catalog(parsed->common), request);
  write_document(parsed->common, doc::Json(document), [&] { return doc::render_loss(document); }, "losses");
  return 0;
}

}  // namespace isoflop::app
