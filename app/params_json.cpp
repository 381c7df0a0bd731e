// The parameter count by component as JSON.
#include "app/params_json.hpp"

namespace isoflop::app {

report::Json params_breakdown_json(const model::ParamCount& pc) {
  return {{"token_embedding", pc.token_embedding}, {"position_embedding", pc.position_embedding},
          {"attention", pc.attention},             {"mlp", pc.mlp},
          {"experts", pc.experts},                 {"norms", pc.norms},
          {"output_head", pc.output_head},         {"total", pc.total()},
          {"non_embedding", pc.non_embedding()},   {"active", pc.active}};
}

}  // namespace isoflop::app
