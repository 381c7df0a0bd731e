// Formatting SI values back into readable quantities ("32.2B", "14.8 d", "1.97 GWh", "$1.23M").
#pragma once

#include <string>

namespace isoflop::units {

// `value` with `digits` significant digits, trailing zeros trimmed ("3.22", "1290", "0.0123").
std::string format_significant(double value, int digits = 3);

// A count with an SI suffix: 3.219e10 → "32.2B", 2.982e12 → "2.98T", 512 → "512".
std::string format_count(double count, int digits = 3);

// Scientific notation for FLOPs: 5.76e23 → "5.76e23".
std::string format_scientific(double value, int digits = 3);

// Seconds as the most readable unit: "42 s", "3.5 h", "14.8 d", "1.2 y".
std::string format_duration(double seconds, int digits = 3);

// Joules as Wh-based energy: "316 kWh", "1.97 GWh".
std::string format_energy(double joules, int digits = 4);

// Watts: "330 W", "2.73 MW".
std::string format_power(double watts, int digits = 3);

// Kilograms of CO2e: "136 kg", "553 t".
std::string format_mass(double kilograms, int digits = 4);

// US dollars: "$950", "$1.23M".
std::string format_money(double usd, int digits = 3);

}  // namespace isoflop::units
