// The law-choosing options shared by `optimal` and `loss`.
#include "app/law_options.hpp"

namespace isoflop::app {

void add_law_options(po::options_description& options) {
  options.add_options()
      ("law", po::value<std::string>()->value_name("NAME"), "scaling law from the catalog (default epoch-2024)")
      ("law-params", po::value<std::string>()->value_name("E,A,B,alpha,beta"),
       "a parametric law L = E + A/N^alpha + B/D^beta given by its constants")
      ("all-laws", po::bool_switch(), "answer with every applicable catalog law (the band)");
}

scaling::LawChoice law_choice(const po::variables_map& vm) {
  return {get_string(vm, "law"), get_string(vm, "law-params"), vm["all-laws"].as<bool>()};
}

}  // namespace isoflop::app
