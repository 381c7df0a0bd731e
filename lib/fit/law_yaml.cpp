// Writing a fitted parametric law as catalog YAML, with round-trippable numbers and quoted strings.
#include "fit/law_yaml.hpp"

#include <cstdio>

#include "core/error.hpp"

namespace isoflop::fit {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string full(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", v);
  return buffer;
}

}  // namespace

void validate_law_name(const std::string& name, const std::string& what) {
  bool ok = !name.empty() && name.size() <= 64 && name[0] != '-' && name[0] != '.' && name[0] != '_';
  for (char c : name) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.');
  if (!ok)
    throw FieldError(what, "'" + name +
                     "' is not a law name; use lower-case letters, digits, '-', '_' or '.', e.g. my-sweep-2026");
}

namespace {

// One parametric law entry; gamma is written only when it is not Chinchilla's 1.
std::string law_entry(const std::string& name, double E, double A, double B, double alpha, double beta, double gamma,
                      const std::string& note, const std::string& source) {
  validate_law_name(name);
  std::string y = "# Scaling law fitted by isoflop fit (Approach 3). Use: isoflop optimal --law " + name +
                  " --catalog DIR\nlaws:\n";
  y += "  - name: " + name + "\n";
  y += "    display_name: " + quoted("fitted: " + name) + "\n";
  y += "    kind: parametric\n";
  y += "    E: " + full(E) + "\n";
  y += "    A: " + full(A) + "\n";
  y += "    B: " + full(B) + "\n";
  y += "    alpha: " + full(alpha) + "\n";
  y += "    beta: " + full(beta) + "\n";
  if (gamma != 1) y += "    gamma: " + full(gamma) + "\n";
  y += "    convention: " + quoted("as in the fitted runs (C = 6ND where FLOPs were derived)") + "\n";
  y += "    note: " + quoted(note) + "\n";
  y += "    source: " + quoted(source) + "\n";
  return y;
}

}  // namespace

std::string law_catalog_yaml(const Approach3Result& f, const std::string& name, const std::string& source) {
  return law_entry(name, f.E, f.A, f.B, f.alpha, f.beta, 1,
                   "fitted on " + std::to_string(f.runs) + " runs; objective " + full(f.objective) + "; " +
                       std::to_string(f.starts_in_best_basin) + " of " + std::to_string(f.starts) +
                       " starts in the best basin",
                   source);
}

std::string law_catalog_yaml(const InteractionResult& f, const std::string& name, const std::string& source) {
  return law_entry(name, f.E, f.A, f.B, f.alpha, f.beta, f.gamma,
                   "interaction form L = E + (A/N^alpha + B/D^beta)^gamma, fitted on " + std::to_string(f.runs) +
                       " runs; objective " + full(f.objective) + "; " + std::to_string(f.starts) + " starts",
                   source);
}

}  // namespace isoflop::fit
