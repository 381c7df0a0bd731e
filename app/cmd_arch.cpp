// isoflop arch: an architecture for a parameter count, dense or a mixture of experts, after a reference family.
#include <spdlog/spdlog.h>

#include "app/cli.hpp"
#include "app/command.hpp"
#include "core/error.hpp"
#include "doc/arch_document.hpp"

namespace isoflop::app {
namespace {

// The sparse model's request; every MoE option is refused without --moe.
std::optional<doc::ArchMoeRequest> moe_request(const po::variables_map& vm) {
  if (!get_switch(vm, "moe")) {
    for (const char* name :
         {"active-params", "experts", "top-k", "capacity-factor", "eval-capacity-factor", "moe-every", "ep"})
      if (vm.count(name)) throw InputError(std::string("--") + name + ": only with --moe (a sparse model)");
    return std::nullopt;
  }
  if (!vm.count("experts")) throw InputError("--moe needs --experts E (experts per MoE layer, at least 2)");
  return doc::ArchMoeRequest{*get_int(vm, "experts"), get_int(vm, "top-k"), get_number(vm, "capacity-factor"),
                             get_number(vm, "eval-capacity-factor"), get_int(vm, "moe-every"), get_int(vm, "ep")};
}

}  // namespace

int run_arch(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("arch"), args, {declared_options("arch")});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"params", "active-params"});
  const auto moe = moe_request(vm);
  const bool active = vm.count("active-params") > 0;
  const doc::ArchRequest request{.params = *get_count(vm, active ? "active-params" : "params"),
                                 .target_active = active,
                                 .style = get_string(vm, "style").value_or("chinchilla"),
                                 .tp = get_int(vm, "tp").value_or(1),
                                 .vocab = get_integer(vm, "vocab"),
                                 .seq = get_integer(vm, "seq"),
                                 .alternatives = get_int(vm, "top", units::Sign::kNonNegative).value_or(3),
                                 .moe = moe};
  const doc::ArchDocument result = doc::design_architecture(load_catalog(parsed->common), request);
  for (const auto& w : result.moe_departures) spdlog::warn("{}", w);
  write_document(parsed->common, doc::Json(result), [&] { return doc::render_arch_page(result); }, "alternatives");
  return 0;
}

}  // namespace isoflop::app
