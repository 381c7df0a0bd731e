// A trainer's command-line option by its name ("num-layers", "num_nodes", "nproc-per-node": argparse's option
// string less its prefix) and the long-option word a command line spells it with. The syntax lives here only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace isoflop::emit {

// The word that names option `name` on a command line (argparse, torchrun, sbatch, Hydra).
std::string long_option(std::string_view name);
// The option a command-line word names; nullopt for a value (a word that is not a long option).
std::optional<std::string> option_name(std::string_view word);

// The conversion argparse applies to an option's values (add_argument's type=); kString takes any word.
enum class ArgparseType { kString, kInt, kFloat };
// Whether Python's int() or float() reads `value`: surrounding whitespace, a sign, digits with single
// underscores between them; float() also a fraction, an exponent, inf, infinity and nan in any case.
bool argparse_accepts(std::string_view value, ArgparseType type);
// The number Python's float() makes of `value` (int() of an int-typed value is the same number), nullopt where
// float() refuses it: the value the rules on parsed arguments hold.
std::optional<double> argparse_number(std::string_view value);

}  // namespace isoflop::emit
