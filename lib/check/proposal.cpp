// Line marks of a proposal's fields.
#include "check/proposal.hpp"

namespace isoflop::check {

int line_of(const LineMarks& marks, const std::string& path) {
  std::string p = path;
  while (!p.empty()) {
    if (auto it = marks.find(p); it != marks.end()) return it->second;
    const size_t dot = p.rfind('.');
    p = dot == std::string::npos ? std::string() : p.substr(0, dot);
  }
  return 1;
}

}  // namespace isoflop::check
