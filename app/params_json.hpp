// The parameter count by component as JSON (`params_breakdown`), shared by `flops` and `arch`.
#pragma once

#include "model/params.hpp"
#include "report/output.hpp"

namespace isoflop::app {

report::Json params_breakdown_json(const model::ParamCount& count);

}  // namespace isoflop::app
