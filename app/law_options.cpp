// The law-choosing options shared by `optimal` and `loss`.
#include "app/law_options.hpp"

namespace isoflop::app {

const OptionList& law_options() {
  static const OptionList list = declared_options("options", "law");
  return list;
}

scaling::LawChoice law_choice(const po::variables_map& vm) {
  return {get_string(vm, "law"), get_string(vm, "law-params"), get_switch(vm, "all-laws")};
}

}  // namespace isoflop::app
