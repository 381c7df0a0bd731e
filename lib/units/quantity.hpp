// Parsing quantities typed by people ("70B", "5.76e23", "30d", "2.7MW", "429g/kWh", "$2.5M") into SI values.
#pragma once

#include <string_view>

namespace isoflop::units {

// Which signs a parsed value may have. Non-finite values (nan, inf, overflow such as 1e400) are always
// rejected.
enum class Sign { kPositive, kNonNegative, kAny };

// Every parser throws InputError naming `what` (the field or option the caller names), the text,
// and the accepted forms.

// A plain number: "0.4", "5.76e23", "-3".
double parse_number(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// A count with an optional SI suffix: k/K = 1e3, M = 1e6, B/G = 1e9, T = 1e12, P = 1e15 ("70B", "1.4T").
// Used for parameters, tokens, FLOPs and GPU counts.
double parse_count(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// A duration, in seconds: s, m|min, h, d, w, y (365 d) — "30d", "720h", "2w", "90m", "14.8d".
double parse_duration_s(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// Energy, in joules: J, kJ, MJ, GJ, Wh, kWh, MWh, GWh, TWh.
double parse_energy_j(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// Power, in watts: W, kW, MW, GW.
double parse_power_w(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// Mass of CO2e, in kilograms: g, kg, t, kt, Mt (an optional "CO2e" after the unit is accepted).
double parse_mass_kg(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// Carbon intensity, in kg CO2e per kWh: g/kWh, kg/kWh, t/MWh, kg/MWh, lb/MWh.
double parse_intensity_kg_per_kwh(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// Money, in US dollars: an optional leading '$' and an optional k/M/B suffix ("$2.5M", "1200", "$40k").
double parse_money_usd(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);
// The same, naming `examples` at the scale the value has in the message of a value that is no amount ("$2.50").
double parse_money_usd(std::string_view text, std::string_view what, Sign sign, std::string_view examples);

// A size in bytes: B, kB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024); "16GiB".
double parse_bytes(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

// A whole number (no suffix beyond k/M/B/T), e.g. a GPU count or a parallel degree; must fit in int64.
long long parse_integer(std::string_view text, std::string_view what, Sign sign = Sign::kPositive);

}  // namespace isoflop::units
