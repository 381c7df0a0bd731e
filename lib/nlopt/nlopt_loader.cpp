// NLopt, loaded on first use: the NLopt functions isoflop calls (the Approach-3 fit's L-BFGS, the step-time
// calibration's Nelder-Mead) are defined here and forward to libnlopt, opened with dlopen the first time one
// is called. Linking libnlopt instead costs every command its loading and relocations at start, although only
// `fit`, `validate report` and `calibrate` optimise anything.
#include <nlopt.h>

#include "core/shared_library.hpp"

#ifndef ISOFLOP_NLOPT_PATH
#define ISOFLOP_NLOPT_PATH "libnlopt.so"
#endif

namespace {

struct NLopt {
  decltype(&::nlopt_create) create = nullptr;
  decltype(&::nlopt_destroy) destroy = nullptr;
  decltype(&::nlopt_optimize) optimize = nullptr;
  decltype(&::nlopt_force_stop) force_stop = nullptr;
  decltype(&::nlopt_set_min_objective) set_min_objective = nullptr;
  decltype(&::nlopt_set_lower_bounds) set_lower_bounds = nullptr;
  decltype(&::nlopt_set_upper_bounds) set_upper_bounds = nullptr;
  decltype(&::nlopt_set_ftol_rel) set_ftol_rel = nullptr;
  decltype(&::nlopt_set_ftol_abs) set_ftol_abs = nullptr;
  decltype(&::nlopt_set_xtol_rel) set_xtol_rel = nullptr;
  decltype(&::nlopt_set_maxeval) set_maxeval = nullptr;
  decltype(&::nlopt_set_vector_storage) set_vector_storage = nullptr;
  decltype(&::nlopt_set_initial_step) set_initial_step = nullptr;
};

NLopt load() {
  constexpr const char* kLibrary = "libnlopt";
  // The runtime's soname first, then the library found at configure.
  void* handle = isoflop::open_shared_library(kLibrary, {"libnlopt.so.0", ISOFLOP_NLOPT_PATH});
  NLopt n;
  isoflop::bind_symbol(handle, kLibrary, "nlopt_create", &n.create);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_destroy", &n.destroy);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_optimize", &n.optimize);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_force_stop", &n.force_stop);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_min_objective", &n.set_min_objective);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_lower_bounds", &n.set_lower_bounds);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_upper_bounds", &n.set_upper_bounds);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_ftol_rel", &n.set_ftol_rel);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_ftol_abs", &n.set_ftol_abs);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_xtol_rel", &n.set_xtol_rel);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_maxeval", &n.set_maxeval);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_vector_storage", &n.set_vector_storage);
  isoflop::bind_symbol(handle, kLibrary, "nlopt_set_initial_step", &n.set_initial_step);
  return n;
}

// Loaded once, thread-safely; never closed.
const NLopt& nlopt() {
  static const NLopt loaded = load();
  return loaded;
}

}  // namespace

extern "C" {

nlopt_opt nlopt_create(nlopt_algorithm algorithm, unsigned n) { return nlopt().create(algorithm, n); }
void nlopt_destroy(nlopt_opt opt) { nlopt().destroy(opt); }
nlopt_result nlopt_optimize(nlopt_opt opt, double* x, double* opt_f) { return nlopt().optimize(opt, x, opt_f); }
nlopt_result nlopt_force_stop(nlopt_opt opt) { return nlopt().force_stop(opt); }
nlopt_result nlopt_set_min_objective(nlopt_opt opt, nlopt_func f, void* f_data) {
  return nlopt().set_min_objective(opt, f, f_data);
}
nlopt_result nlopt_set_lower_bounds(nlopt_opt opt, const double* lb) { return nlopt().set_lower_bounds(opt, lb); }
nlopt_result nlopt_set_upper_bounds(nlopt_opt opt, const double* ub) { return nlopt().set_upper_bounds(opt, ub); }
nlopt_result nlopt_set_ftol_rel(nlopt_opt opt, double tol) { return nlopt().set_ftol_rel(opt, tol); }
nlopt_result nlopt_set_ftol_abs(nlopt_opt opt, double tol) { return nlopt().set_ftol_abs(opt, tol); }
nlopt_result nlopt_set_xtol_rel(nlopt_opt opt, double tol) { return nlopt().set_xtol_rel(opt, tol); }
nlopt_result nlopt_set_maxeval(nlopt_opt opt, int maxeval) { return nlopt().set_maxeval(opt, maxeval); }
nlopt_result nlopt_set_vector_storage(nlopt_opt opt, unsigned dim) { return nlopt().set_vector_storage(opt, dim); }
nlopt_result nlopt_set_initial_step(nlopt_opt opt, const double* dx) { return nlopt().set_initial_step(opt, dx); }

}  // extern "C"
