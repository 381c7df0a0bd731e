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

// Every NLopt function isoflop calls, by its name after `nlopt_`: the table below has one member each, bound to
// the library's symbol of that name.
#define ISOFLOP_NLOPT_FUNCTIONS(X)                                                                                \
  X(create) X(destroy) X(optimize) X(force_stop) X(set_min_objective) X(set_lower_bounds) X(set_upper_bounds) \
  X(set_ftol_rel) X(set_ftol_abs) X(set_xtol_rel) X(set_maxeval) X(set_vector_storage) X(set_initial_step)

struct NLopt {
  static constexpr const char* kLibrary = "libnlopt";
  static constexpr const char* kSoname = "libnlopt.so.0";
  static constexpr const char* kPath = ISOFLOP_NLOPT_PATH;

#define ISOFLOP_NLOPT_MEMBER(name) decltype(&::nlopt_##name) name = nullptr;
  ISOFLOP_NLOPT_FUNCTIONS(ISOFLOP_NLOPT_MEMBER)
#undef ISOFLOP_NLOPT_MEMBER

  void bind(void* handle) {
#define ISOFLOP_NLOPT_BIND(name) isoflop::bind_symbol(handle, kLibrary, "nlopt_" #name, &name);
    ISOFLOP_NLOPT_FUNCTIONS(ISOFLOP_NLOPT_BIND)
#undef ISOFLOP_NLOPT_BIND
  }
};

const NLopt& nlopt() { return isoflop::loaded_functions<NLopt>(); }

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
