// A field's name as the caller's user knows it, for messages that name a field the caller filled (plot →
// --plot on the command line: app/flags.cpp).
#pragma once

#include <string>
#include <string_view>

namespace isoflop {

using Spelling = std::string (*)(std::string_view field);

// The field as `spell` spells it; without one, the field's own name.
inline std::string spelled(Spelling spell, std::string_view field) { return spell ? spell(field) : std::string(field); }

}  // namespace isoflop
