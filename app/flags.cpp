// Field names of the library's options structs → flags. Most follow the rule (underscores become dashes);
// the table lists the exceptions.
#include "app/flags.hpp"

#include <array>
#include <utility>

namespace isoflop::app {

std::string flag_for_field(std::string_view field) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 15> kSpelledOtherwise = {{
      {"catalog_dir", "--catalog"},
      {"zero_stage", "--zero"},
      {"utilisation", "--mfu"},
      {"cfe_fraction", "--cfe"},
      {"intensity_kg_per_kwh", "--grid"},
      {"price_per_gpu_hour_usd", "--price-per-gpu-hour"},
      {"price_per_kwh_usd", "--price-per-kwh"},
      {"power_per_gpu_w", "--power-w"},
      {"node_power_w", "--node-power-kw"},
      {"peak_flops_per_gpu", "--gpu"},
      {"tdp_w", "--gpu"},
      {"top_k", "--top"},
      {"alternatives", "--top"},
      {"moe_top_k", "--top-k"},
      {"global_batch_tokens", "--global-batch-tokens"},
  }};
  // Already a flag, or a description rather than a field name ("shape family 'x' block"): as it is.
  if (field.starts_with("--") || field.find(' ') != std::string_view::npos) return std::string(field);
  for (const auto& [name, flag] : kSpelledOtherwise)
    if (name == field) return std::string(flag);
  std::string flag = "--";
  for (char c : field) flag += c == '_' ? '-' : c;
  return flag;
}

}  // namespace isoflop::app
