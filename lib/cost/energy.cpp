// The three power methods.
#include "cost/energy.hpp"

#include <cmath>

#include "units/format.hpp"

namespace isoflop::cost {
namespace {

std::string watts(double w) { return units::format_power(w, 4); }

}  // namespace

std::vector<PowerEstimate> estimate_power(const PowerInputs& in) {
  std::vector<PowerEstimate> out(3);
  const std::string n = std::to_string(in.gpus);

  PowerEstimate& node = out[0];
  node.method = EnergyMethod::kNode;
  if (in.node_power_w) {
    const double nodes = std::ceil(static_cast<double>(in.gpus) / in.gpus_per_node);
    node.available = true;
    node.power_w = *in.node_power_w * nodes;
    // GPUs that do not fill their nodes hold them whole: a node's host, fans and network draw for all its slots.
    node.assumptions = watts(*in.node_power_w) + " per node" +
                       (in.node_power_note.empty() ? "" : " (" + in.node_power_note + ")") + " x " +
                       units::format_significant(nodes, 12) + (nodes == 1 ? " node of " : " nodes of ") +
                       std::to_string(in.gpus_per_node) + " accelerators";
    if (in.gpus % in.gpus_per_node != 0)
      node.assumptions += " (" + n + (in.gpus == 1 ? " accelerator occupies " : " accelerators occupy ") +
                          units::format_significant(nodes, 12) +
                          (nodes == 1 ? " node, billed whole)" : " nodes, billed whole)");
  } else {
    node.assumptions = "no node power (no node in the catalog for this accelerator; give a node or its power)";
  }

  PowerEstimate& measured = out[1];
  measured.method = EnergyMethod::kMeasured;
  if (in.measured_power_w) {
    measured.available = true;
    measured.power_w = *in.measured_power_w * in.gpus;
    measured.assumptions = watts(*in.measured_power_w) + " average system power per accelerator" +
                           (in.measured_power_note.empty() ? "" : " (" + in.measured_power_note + ")") + " x " + n +
                           " (Patterson et al. 2021)";
  } else {
    measured.assumptions = "no measured power (give the average system power per accelerator)";
  }

  PowerEstimate& tdp = out[2];
  tdp.method = EnergyMethod::kTdp;
  if (in.tdp_w > 0) {
    const double per_gpu = in.tdp_w * in.tdp_utilisation + in.host_overhead_w;
    tdp.available = true;
    tdp.power_w = per_gpu * in.gpus;
    tdp.assumptions = "TDP " + watts(in.tdp_w) + " x " + units::format_significant(in.tdp_utilisation) +
                      " utilisation + " + watts(in.host_overhead_w) + " host overhead = " + watts(per_gpu) +
                      " per accelerator x " + n;
  } else {
    tdp.assumptions = "no TDP for this accelerator";
  }
  for (auto& e : out)
    if (e.available && in.gpus > 0) e.power_per_gpu_w = e.power_w / in.gpus;
  return out;
}

EnergyMethod default_energy_method(const PowerInputs& in) {
  if (in.measured_power_w) return EnergyMethod::kMeasured;
  if (in.node_power_w) return EnergyMethod::kNode;
  return EnergyMethod::kTdp;
}

SystemPower system_power_per_accelerator(const catalog::Accelerator& a, double tdp_utilisation,
                                         double host_overhead_w) {
  if (a.measured_power_w) return {*a.measured_power_w, "measured " + watts(*a.measured_power_w)};
  return tdp_system_power(a, tdp_utilisation, host_overhead_w);
}

SystemPower tdp_system_power(const catalog::Accelerator& a, double tdp_utilisation, double host_overhead_w) {
  const double w = a.tdp_w * tdp_utilisation + host_overhead_w;
  return {w, "TDP " + watts(a.tdp_w) + " x " + units::format_significant(tdp_utilisation) + " + host " +
                 watts(host_overhead_w)};
}

}  // namespace isoflop::cost
