// The CPU's fp32 GEMM peak as the trainer's thread pool reaches it: the denominator of MFU on a CPU the
// catalog does not list.
#pragma once

namespace isoflop::train {

// Every OpenMP thread multiplies its own 512×512 matrices with single-threaded OpenBLAS (as the CPU
// backend's layers do); best of three rounds, in FLOP/s over all threads. Takes a few tens of milliseconds.
double measure_sgemm_peak_flops();

}  // namespace isoflop::train
