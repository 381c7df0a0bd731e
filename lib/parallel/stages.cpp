// Pipeline stage splits and the rules Megatron-Core applies to an uneven split
// (megatron/core/transformer/transformer_config.py, "Uneven PP").
#include "parallel/stages.hpp"

#include <algorithm>

namespace isoflop::parallel {

StageLayers pipeline_stage_layers(int layers, const Layout& l) {
  const int pp = std::max(1, l.pp);
  if (pp == 1) return {layers, layers, layers};
  const bool first_set = l.first_stage_layers > 0, last_set = l.last_stage_layers > 0;
  const int rest_stages = pp - (first_set ? 1 : 0) - (last_set ? 1 : 0);
  const int rest_layers = layers - (first_set ? l.first_stage_layers : 0) - (last_set ? l.last_stage_layers : 0);
  const int even = rest_stages > 0 ? std::max(0, rest_layers) / rest_stages : 0;
  StageLayers s;
  s.first = first_set ? l.first_stage_layers : even;
  s.last = last_set ? l.last_stage_layers : even;
  s.middle = pp > 2 ? even : std::max(s.first, s.last);
  return s;
}

bool stage_layers_consistent(int layers, const Layout& l) {
  if (l.pp <= 1) return l.first_stage_layers == 0 && l.last_stage_layers == 0 && layers % l.vpp == 0;
  const StageLayers s = pipeline_stage_layers(layers, l);
  // With PP 2 `middle` repeats the larger edge stage (there is no middle stage): not counted.
  const long long total = static_cast<long long>(s.first) + s.last + static_cast<long long>(s.middle) * (l.pp - 2);
  const bool middle_ok = l.pp == 2 || (s.middle >= l.vpp && s.middle % l.vpp == 0);
  return total == layers && s.first >= l.vpp && s.last >= l.vpp && s.first % l.vpp == 0 && s.last % l.vpp == 0 &&
         middle_ok;
}

EdgeLayers balanced_edge_layers(int layers, int pp, int vpp) {
  // In 64 bits: PP and VPP pinned up to a million each multiply past an int.
  const long long round = static_cast<long long>(pp) * vpp;
  if (pp < 2 || vpp < 1 || layers % round == 0) return {0, 0};
  const long long middle = (layers + round - 1) / round * vpp;
  const long long rest_layers = layers - middle * (pp - 2);
  if (rest_layers < 2LL * vpp) return {0, 0};
  const int rest = static_cast<int>(rest_layers);  // at most layers
  if (rest < 2 * vpp || rest % vpp != 0) return {0, 0};
  const int last = rest / vpp / 2 * vpp;
  const int first = rest - last;
  if (first > middle && pp > 2) return {0, 0};
  return {first, last};
}

std::string stage_split_violation(int layers, const Layout& l) {
  auto s = [](long long v) { return std::to_string(v); };
  const int pp = std::max(1, l.pp), vpp = std::max(1, l.vpp);
  const bool first_set = l.first_stage_layers > 0, last_set = l.last_stage_layers > 0;
  if (l.first_stage_layers < 0 || l.last_stage_layers < 0) return "first and last stage layers must not be negative";
  if (!first_set && !last_set) {
    if (const long long round = static_cast<long long>(pp) * vpp; layers % round != 0)
      return "layers " + s(layers) + " are not divisible by PP·VPP = " + s(round) +
             " (give the first and last stages' layers for an uneven split)";
    return "";
  }
  if (pp == 1) return "first and last stage layers need PP > 1";
  if (first_set && l.first_stage_layers % vpp != 0)
    return "first stage layers " + s(l.first_stage_layers) + " are not divisible by VPP " + s(vpp);
  if (last_set && l.last_stage_layers % vpp != 0)
    return "last stage layers " + s(l.last_stage_layers) + " are not divisible by VPP " + s(vpp);
  const int rest_stages = pp - (first_set ? 1 : 0) - (last_set ? 1 : 0);
  const int rest_layers = layers - (first_set ? l.first_stage_layers : 0) - (last_set ? l.last_stage_layers : 0);
  if (rest_layers < 0 || (rest_layers == 0) != (rest_stages == 0))
    return s(rest_layers) + " layers remain for " + s(rest_stages) + " middle stages after the first and last stages";
  if (rest_stages > 0 && rest_layers % rest_stages != 0)
    return "the " + s(rest_layers) + " layers between the first and last stages are not divisible by the " +
           s(rest_stages) + " remaining stages";
  if (rest_stages > 0 && (rest_layers / rest_stages) % vpp != 0)
    return "layers per middle stage " + s(rest_layers / rest_stages) + " are not divisible by VPP " + s(vpp);
  return "";
}

}  // namespace isoflop::parallel
