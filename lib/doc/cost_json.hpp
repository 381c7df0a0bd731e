// JSON of the run-cost section (cost::CostReport): one shape wherever a run is costed (`cost.cost`,
// `plan.cost`): "inputs" (the accelerator, the run's inputs and the what-if levers), the run's time, power,
// energy, CO2e and money, "energy_methods" (all three, with their assumptions), "embodied" and "whatif" (the
// 4Ms rows). Every key is always there, null where the value is unknown (an unpriced run's money, an
// unavailable energy method's figures) or infinite (a what-if factor over a zero row).
#pragma once

#include <limits>

#include "cost/cost_report.hpp"
#include "doc/fields.hpp"
#include "units/si.hpp"

namespace isoflop::doc {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
template <>
inline constexpr auto fields<cost::WhatIfRow> =
    std::tuple{field("lever", &cost::WhatIfRow::lever, names(cost::kLeverNames)),
               field("change", &cost::WhatIfRow::change), field("applied", &cost::WhatIfRow::applied),
               field("note", &cost::WhatIfRow::note), field("time_s", &cost::WhatIfRow::time_s),
               derived("days", [](const cost::WhatIfRow& r) { return r.time_s / units::kSecondsPerDay; }),
               field("energy_kwh", &cost::WhatIfRow::energy_kwh), field("co2e_kg", &cost::WhatIfRow::co2e_kg),
               field("net_co2e_kg", &cost::WhatIfRow::net_co2e_kg), field("cost_usd", &cost::WhatIfRow::cost_usd),
               field("energy_factor", &cost::WhatIfRow::energy_factor, null_when(kInfinity)),
               field("co2e_factor", &cost::WhatIfRow::co2e_factor, null_when(kInfinity)),
               field("cost_factor", &cost::WhatIfRow::cost_factor, null_when(kInfinity)),
               field("published_range", &cost::WhatIfRow::published_range),
               // A priced row's null factor is infinite (the row costs nothing); an unpriced row has none.
               on_read([](const Json&, cost::WhatIfRow& r) {
                 if (!r.cost_usd) r.cost_factor.reset();
               })};

}  // namespace isoflop::doc

namespace isoflop::cost {

void to_json(doc::Json& j, const CostReport& report);
void from_json(const doc::Json& j, CostReport& report);

}  // namespace isoflop::cost
