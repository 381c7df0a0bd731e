// Fuzz target: the quantity parsers of lib/units ("70B", "30d", "429g/kWh", "$2.5M"). The first byte picks
// the accepted sign; the rest is the text given to every parser. A parsed value must be finite and of the
// sign asked for.
#include <cmath>
#include <string_view>

#include "core/error.hpp"
#include "fuzz_support.hpp"
#include "units/format.hpp"
#include "units/quantity.hpp"

namespace {

using isoflop::units::Sign;

bool sign_holds(double v, Sign sign) {
  switch (sign) {
    case Sign::kPositive: return v > 0;
    case Sign::kNonNegative: return v >= 0;
    case Sign::kAny: return true;
  }
  return false;
}

template <class Parse>
void try_parse(Parse parse, std::string_view text, Sign sign) {
  try {
    const double v = parse(text, "value", sign);
    ISOFLOP_FUZZ_CHECK(std::isfinite(v));
    ISOFLOP_FUZZ_CHECK(sign_holds(v, sign));
    // Formatting what was parsed must not fail either.
    (void)isoflop::units::format_count(v);
    (void)isoflop::units::format_duration(v);
    (void)isoflop::units::format_money(v);
  } catch (const isoflop::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Sign sign = static_cast<Sign>(data[0] % 3);
  const std::string text = isoflop::fuzz::as_text(data + 1, size - 1);
  namespace u = isoflop::units;
  try_parse(&u::parse_number, text, sign);
  try_parse(&u::parse_count, text, sign);
  try_parse(&u::parse_duration_s, text, sign);
  try_parse(&u::parse_energy_j, text, sign);
  try_parse(&u::parse_power_w, text, sign);
  try_parse(&u::parse_mass_kg, text, sign);
  try_parse(&u::parse_intensity_kg_per_kwh, text, sign);
  // parse_money_usd is overloaded (with the examples a message names): the three-argument one.
  try_parse(static_cast<double (*)(std::string_view, std::string_view, Sign)>(&u::parse_money_usd), text, sign);
  try_parse([](std::string_view t, std::string_view what, Sign s) { return u::parse_money_usd(t, what, s, "$2.50"); },
            text, sign);
  try {
    const long long n = u::parse_integer(text, "value", sign);
    ISOFLOP_FUZZ_CHECK(sign_holds(static_cast<double>(n), sign));
  } catch (const isoflop::Error&) {
  }
  return 0;
}
