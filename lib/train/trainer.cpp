// The training run (a TrainingSession stepped until done or stopped), the catalog accelerator of a CUDA
// device, and the loss curve as CSV.
#include "train/trainer.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "train/session.hpp"

namespace isoflop::train {
namespace {

std::vector<std::string> name_tokens(const std::string& text) {
  std::vector<std::string> tokens;
  std::string current;
  for (char ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      current += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    } else if (!current.empty()) {
      tokens.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) tokens.push_back(current);
  return tokens;
}

bool is_form_factor(const std::string& t) { return t == "pcie" || t == "nvl" || t.rfind("sxm", 0) == 0; }

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

const catalog::Accelerator* accelerator_for_device(const std::string& device_name, const catalog::Catalog& catalog) {
  // Driver names ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-40GB", "NVIDIA H200") share the chip token with the
  // catalog id (h100-sxm5-80gb); other id tokens (memory size, form factor) break ties, and a form factor the
  // driver names that differs from the id's (a PCIe card against an SXM entry: different peaks) rules it out.
  const auto device = name_tokens(device_name);
  const catalog::Accelerator* best = nullptr;
  int best_score = -1;
  for (const auto& a : catalog.accelerators) {
    const auto id = name_tokens(a.name);
    if (id.empty() || !contains(device, id[0])) continue;
    bool conflict = false;
    int score = 0;
    for (const auto& d : device)
      if (is_form_factor(d)) {
        bool same = false;
        for (const auto& t : id)
          if (is_form_factor(t) && (t == d || (t.rfind("sxm", 0) == 0 && d.rfind("sxm", 0) == 0))) same = true;
        if (!same) conflict = true;
      }
    if (conflict) continue;
    for (size_t i = 1; i < id.size(); ++i) score += contains(device, id[i]) ? 1 : 0;
    if (score > best_score) best = &a, best_score = score;
  }
  return best;
}

std::string curve_csv(const std::vector<CurvePoint>& curve) {
  std::string out = "step,tokens,lr,train_loss,eval_loss,grad_norm,elapsed_s\n";
  char line[256];
  for (const auto& p : curve) {
    char eval[40] = "";
    if (p.eval_loss >= 0) std::snprintf(eval, sizeof eval, "%.9g", p.eval_loss);
    std::snprintf(line, sizeof line, "%lld,%.0f,%.9g,%.9g,%s,%.9g,%.6f\n", p.step, p.tokens, p.lr, p.train_loss, eval,
                  p.grad_norm, p.elapsed_s);
    out += line;
  }
  return out;
}

TrainResult run_training(const Job& job, const RunOptions& options) {
  TrainingSession session(job, options);
  if (session.already_finished()) return session.finish(false);
  const auto stop_requested = [&] {
    return (options.stop && options.stop->load()) ||
           (options.stop_after_steps > 0 && session.session_steps() >= options.stop_after_steps);
  };
  bool interrupted = false;
  while (!session.finished()) {
    session.step();
    if (session.finished()) break;
    if (stop_requested()) {
      interrupted = true;
      break;
    }
    if (session.checkpoint_due()) session.checkpoint();
  }
  session.checkpoint();  // on interruption, and at the end (so a finished run can be re-reported with --resume)
  return session.finish(interrupted);
}

}  // namespace isoflop::train
