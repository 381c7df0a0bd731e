// Pipeline stage splits.
#include "parallel/stages.hpp"

namespace isoflop::parallel {

StageLayers pipeline_stage_layers(int layers, const Layout& l) {
  if (l.pp <= 1) return {layers, 0, layers};
  int rest = layers, stages = l.pp;
  if (l.first_stage_layers > 0) rest -= l.first_stage_layers, --stages;
  if (l.last_stage_layers > 0) rest -= l.last_stage_layers, --stages;
  const int middle = stages > 0 ? rest / stages : 0;
  return {l.first_stage_layers > 0 ? l.first_stage_layers : middle, l.pp > 2 ? middle : 0,
          l.last_stage_layers > 0 ? l.last_stage_layers : middle};
}

bool stage_layers_consistent(int layers, const Layout& l) {
  if (l.pp <= 1) return l.first_stage_layers == 0 && l.last_stage_layers == 0 && layers % l.vpp == 0;
  const StageLayers s = pipeline_stage_layers(layers, l);
  const long long total = static_cast<long long>(s.first) + s.last + static_cast<long long>(s.middle) * (l.pp - 2);
  const bool middle_ok = l.pp == 2 || (s.middle >= l.vpp && s.middle % l.vpp == 0);
  return total == layers && s.first >= l.vpp && s.last >= l.vpp && s.first % l.vpp == 0 && s.last % l.vpp == 0 &&
         middle_ok;
}

EdgeLayers balanced_edge_layers(int layers, int pp, int vpp) {
  if (pp < 2 || vpp < 1 || layers % (pp * vpp) == 0) return {0, 0};
  const int middle = (layers + pp * vpp - 1) / (pp * vpp) * vpp;
  const int rest = layers - middle * (pp - 2);
  if (rest < 2 * vpp || rest % vpp != 0) return {0, 0};
  const int last = rest / vpp / 2 * vpp;
  const int first = rest - last;
  if (first > middle && pp > 2) return {0, 0};
  return {first, last};
}

}  // namespace isoflop::parallel
