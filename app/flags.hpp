// The one place where the library's field names become the command line's flags.
#pragma once

#include <string>
#include <string_view>

namespace isoflop::app {

// "global_batch" → "--global-batch"; fields whose flag is spelled otherwise are listed in flags.cpp.
std::string flag_for_field(std::string_view field);

}  // namespace isoflop::app
