// isoflop flops: parameters and FLOPs of a model and a workload, by counting convention.
#include "app/cli.hpp"
#include "app/command.hpp"
#include "doc/flops_document.hpp"

namespace isoflop::app {

int run_flops(const std::vector<std::string>& args) {
  const auto parsed = parse_command(command_help("flops"), args, {declared_options("flops"), from_option("an arch, layout or plan document")});
  if (!parsed) return 0;
  const auto& vm = parsed->values;
  require_one_of(vm, {"arch", "params", "from"});
  require_one_of(vm, {"tokens", "global-batch"}, !vm.count("from"));
  const doc::FlopsRequest request{
      .arch = get_string(vm, "arch"), .from = get_string(vm, "from"), .params = get_count(vm, "params"),
      .tokens = get_count(vm, "tokens"), .global_batch = get_integer(vm, "global-batch"), .seq = get_integer(vm, "seq"),
      .convention = get_enum(vm, "flops-convention", model::kFlopsConventionNames).value_or(model::FlopsConvention::k6nd),
      .recompute = get_enum(vm, "recompute", model::kRecomputeNames),
      .non_embedding = get_switch(vm, "non-embedding")};
  // A catalog is needed only to resolve --arch.
  const catalog::Catalog cat = request.arch ? load_catalog(parsed->common) : catalog::Catalog{};
  const doc::FlopsDocument result = doc::count_flops(cat, request);
  write_document(parsed->common, doc::Json(result), [&] { return doc::render_flops_page(result); });
  return 0;
}

}  // namespace isoflop::app
