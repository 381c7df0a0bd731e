// isoflop loss: the predicted loss of N parameters trained on D tokens (optionally from U unique tokens).
#include <string>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "app/law_options.hpp"
#include "core/error.hpp"
#include "doc/loss_document.hpp"

namespace isoflop::app {
namespace {

const CommandHelp kHelp = {
    "loss",
    "isoflop loss --params N --tokens D [--unique-tokens U] [options]",
    "Predicted pre-training loss (nats per token) of a model with N parameters trained on D tokens, under a\n"
    "scaling law (default epoch-2024): parametric L = E + A/N^alpha + B/D^beta, Kaplan's L(N, D) in its own\n"
    "non-embedding convention, or Muennighoff's data-constrained law with U unique tokens (repeated epochs\n"
    "count less). --all-laws gives the loss under every law that predicts one.",
    {"isoflop loss --params 70B --tokens 1.4T                 # Chinchilla itself, default law",
     "isoflop loss --params 70B --tokens 1.4T --law chinchilla",
     "isoflop loss --params 6.34B --tokens 242B --unique-tokens 25B --law muennighoff-2023",
     "isoflop loss --params 1B --tokens 20B --all-laws -o json",
     "isoflop loss --params 1B --tokens 20B --law-params 1.69,406.4,410.7,0.34,0.28"}};

const OptionList kOptions = {
    "params N: parameters (70B; non-embedding for kaplan-2020)",
    "tokens D: training tokens, repeats included (1.4T)",
    "unique-tokens U: distinct tokens (D/U epochs)"};

}  // namespace

int run_loss(const std::vector<std::string>& args) {
  const auto parsed = parse_command(kHelp, args, {kOptions, law_options()});
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
