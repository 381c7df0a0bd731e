// The law-choosing options shared by `optimal` and `loss`.
#include "app/law_options.hpp"

namespace isoflop::app {

const OptionList& law_options() {
  static const OptionList list = {
      "law NAME: scaling law from the catalog (default epoch-2024)",
      "law-params E,A,B,alpha,beta: a parametric law L = E + A/N^alpha + B/D^beta given by its constants",
      "all-laws: answer with every applicable catalog law (the band)"};
  return list;
}

scaling::LawChoice law_choice(const po::variables_map& vm) {
  return {get_string(vm, "law"), get_string(vm, "law-params"), get_switch(vm, "all-laws")};
}

}  // namespace isoflop::app
