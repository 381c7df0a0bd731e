// The conversions budgets are stated in: hours, days and 365-day years of seconds, and kWh of joules; and the
// microseconds the catalog states short fixed times in.
#pragma once

namespace isoflop::units {

inline constexpr double kSecondsPerHour = 3600.0;
inline constexpr double kSecondsPerDay = 24 * kSecondsPerHour;
inline constexpr double kSecondsPerYear = 365 * kSecondsPerDay;  // a 365-day year, as LLMCarbon counts it
inline constexpr double kJoulesPerKwh = 1e3 * kSecondsPerHour;   // 1 kW for one hour
inline constexpr double kSecondsPerMicrosecond = 1e-6;

}  // namespace isoflop::units
