// The law-choosing options shared by `optimal` and `loss`.
#include "app/law_options.hpp"

#include "core/error.hpp"
#include "scaling/loss_law.hpp"

namespace isoflop::app {

void add_law_options(po::options_description& options) {
  options.add_options()
      ("law", po::value<std::string>()->value_name("NAME"), "scaling law from the catalog (default epoch-2024)")
      ("law-params", po::value<std::string>()->value_name("E,A,B,alpha,beta"),
       "a parametric law L = E + A/N^alpha + B/D^beta given by its constants")
      ("all-laws", po::bool_switch(), "answer with every applicable catalog law (the band)");
}

std::vector<catalog::LawSpec> selected_laws(const po::variables_map& vm, const catalog::Catalog& cat,
                                            bool unique_tokens) {
  const bool all = vm["all-laws"].as<bool>();
  if (all && (vm.count("law") || vm.count("law-params")))
    throw InputError("--all-laws conflicts with --law/--law-params; give one");
  require_one_of(vm, {"law", "law-params"}, false);
  std::vector<catalog::LawSpec> laws;
  if (all) {
    laws = cat.laws;
  } else if (auto params = get_string(vm, "law-params")) {
    laws.push_back(scaling::law_from_params(*params));
  } else {
    laws.push_back(cat.law(get_string(vm, "law").value_or(scaling::kDefaultLaw)));
  }
  if (unique_tokens) {
    const catalog::LawSpec* donor = cat.find_law("muennighoff-2023");
    if (donor && donor->kind == catalog::LawKind::kDataConstrained)
      for (auto& law : laws) law = scaling::with_repetition_decay(law, *donor);
  }
  return laws;
}

report::Json allocation_json(const scaling::Allocation& a) {
  report::Json j = {{"law", a.law},
                    {"method", a.method},
                    {"flops", a.flops},
                    {"params", a.params},
                    {"tokens", a.tokens},
                    {"tokens_per_param", a.tokens_per_param}};
  j["loss"] = a.loss ? report::Json(*a.loss) : report::Json(nullptr);
  if (a.unique_tokens) {
    j["unique_tokens"] = *a.unique_tokens;
    j["epochs"] = *a.epochs;
  }
  if (a.inference_tokens) {
    j["inference_tokens"] = *a.inference_tokens;
    j["inference_flops"] = *a.inference_flops;
    j["total_flops"] = *a.total_flops;
    j["compute_optimal"] = {{"params", *a.compute_optimal_params},
                            {"tokens", *a.compute_optimal_tokens},
                            {"total_flops", *a.compute_optimal_total_flops}};
  }
  return j;
}

}  // namespace isoflop::app
