// Reading shapes.yaml: the reference families for shaping and ST-MoE's recommendations for sparse models
// (model/shape_family.hpp holds the types).
#pragma once

#include <string>
#include <vector>

#include "catalog/field_reader.hpp"
#include "model/shape_family.hpp"

namespace isoflop::catalog {

// The model types, spelled as before in the catalog's namespace.
using model::kShapeRuleNames;
using model::MoeRecommendations;
using model::ShapeBand;
using model::ShapeFamily;
using model::ShapeRow;
using model::ShapeRule;

ShapeFamily parse_shape_family(FieldReader& reader);
MoeRecommendations parse_moe_recommendations(FieldReader& reader);

}  // namespace isoflop::catalog
