#include "emit/argv.hpp"

namespace isoflop::emit {
namespace {
// argparse's default prefix_chars; a long option starts with two of them (torchrun, sbatch and Hydra agree).
constexpr char kPrefixChar = '-';
bool long_prefixed(std::string_view word) { return word.size() >= 2 && word[0] == kPrefixChar && word[1] == kPrefixChar; }
}  // namespace

std::string long_option(std::string_view name) { return std::string(2, kPrefixChar) + std::string(name); }

std::optional<std::string> option_name(std::string_view word) {
  if (!long_prefixed(word)) return std::nullopt;
  return std::string(word.substr(2));
}

}  // namespace isoflop::emit
