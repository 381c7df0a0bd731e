#!/usr/bin/python3
"""Benchmark: the same 4,500-start Approach-3 fit with scipy's L-BFGS-B, against bench_fit_approach3.

Usage (Debian python3-scipy): /usr/bin/python3 tests/bench/fit_scipy.py BUILD_DIR [--every K] [--numeric-jac]
  Runs BUILD_DIR/tests/bench_fit_approach3 (which writes the 240 runs and times isoflop's fit, median of 9,
  on all cores and on one), fits the same runs with scipy from the same grid, and prints both times, the
  speed ratios, both objectives and their relative difference (the same optimum: within 1e-6).
  Both use the same objective (eq. 11: Huber, delta = 1e-3, summed), the analytic gradient, and scipy's
  default L-BFGS-B settings (m = 10, ftol = 1e7 * machine epsilon, gtol = 1e-5, maxfun = 15000), which
  isoflop's defaults reproduce.
  --every K fits only every K-th start with scipy and scales its time by K (labelled as an estimate).
  --numeric-jac lets scipy difference the objective itself (minimize without jac, as a call of
  minimize(method='L-BFGS-B') does by default) instead of the analytic gradient (the default here).
"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import scipy
from scipy.optimize import minimize

DELTA = 1e-3  # Hoffmann et al. 2022, section 3.3


def objective(x, ln_n, ln_d, ln_l):
    a, b, e, alpha, beta = x
    u, v = a - alpha * ln_n, b - beta * ln_d
    w = np.full_like(u, e)
    m = np.maximum(np.maximum(u, v), w)
    eu, ev, ee = np.exp(u - m), np.exp(v - m), np.exp(w - m)
    s = eu + ev + ee
    r = m + np.log(s) - ln_l
    small = np.abs(r) <= DELTA
    f = np.where(small, 0.5 * r * r, DELTA * (np.abs(r) - 0.5 * DELTA)).sum()
    psi = np.where(small, r, DELTA * np.sign(r)) / s
    g = np.array([(psi * eu).sum(), (psi * ev).sum(), (psi * ee).sum(),
                  -(psi * eu * ln_n).sum(), -(psi * ev * ln_d).sum()])
    return f, g


def run_bench(bench, args):
    out = subprocess.run([bench] + args, check=True, capture_output=True, text=True).stdout
    fields = out.split()
    value = lambda key: fields[fields.index(key) + 1]
    median_key = next(f for f in fields if f.startswith("median_of_"))
    return out.strip(), float(value(median_key)), float(value("objective")), int(value("threads"))


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build = sys.argv[1]
    every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 1
    numeric = "--numeric-jac" in sys.argv
    bench = None
    for candidate in (os.path.join(build, "tests", "bench_fit_approach3"), os.path.join(build, "bench_fit_approach3")):
        if os.path.exists(candidate):
            bench = candidate
    if not bench:
        print("bench_fit_approach3 not found under", build, "(cmake --build BUILD --target bench_fit_approach3)")
        return 2
    print("load average before: %.2f %.2f %.2f" % os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "runs.csv")
        out, cpp_time, cpp_obj, threads = run_bench(bench, ["--write-csv", csv])
        data = np.loadtxt(csv, delimiter=",", skiprows=1)
    print(out)
    out1, cpp_time_1, _, _ = run_bench(bench, ["--threads", "1"])
    print(out1.splitlines()[0])
    ln_n, ln_d, ln_l = np.log(data[:, 0]), np.log(data[:, 1]), np.log(data[:, 3])
    grid = [(a, b, e, al, be) for a in np.linspace(0, 25, 6) for b in np.linspace(0, 25, 6)
            for e in np.linspace(-1, 1, 5) for al in np.linspace(0, 2, 5) for be in np.linspace(0, 2, 5)]
    starts = grid[::every]
    best = (np.inf, None)
    evaluations = 0
    t0 = time.perf_counter()
    for x0 in starts:
        if numeric:
            res = minimize(lambda x: objective(x, ln_n, ln_d, ln_l)[0], np.array(x0), method="L-BFGS-B")
        else:
            res = minimize(objective, np.array(x0), args=(ln_n, ln_d, ln_l), jac=True, method="L-BFGS-B")
        evaluations += res.nfev
        if res.fun < best[0]:
            best = (res.fun, res.x)
    py_time = (time.perf_counter() - t0) * every
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())
    a, b, e, alpha, beta = best[1]
    label = "scipy_s" if every == 1 else f"scipy_s_estimated_from_every_{every}th_start"
    label += "_numeric_jac" if numeric else "_analytic_jac"
    print(f"scipy {scipy.__version__} {label} {py_time:.2f} evaluations {evaluations * every} "
          f"objective {best[0]:.12g} E {np.exp(e):.6f} alpha {alpha:.6f} beta {beta:.6f}")
    rel = abs(best[0] - cpp_obj) / abs(cpp_obj)
    print(f"isoflop_s {cpp_time:.4f} ({threads} threads) {cpp_time_1:.4f} (1 thread), medians of 9")
    print(f"speedup {py_time / cpp_time:.0f}x ({threads} threads) {py_time / cpp_time_1:.0f}x (1 thread)")
    print(f"objective isoflop {cpp_obj:.12g} scipy {best[0]:.12g} rel_diff {rel:.2e} "
          f"{'(same optimum)' if rel <= 1e-6 else '(DIFFERENT)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
