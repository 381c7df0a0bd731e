// Byte units shared by every module that reports memory: one GiB, 2^30 bytes.
#pragma once

namespace isoflop {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;  // bytes in a gibibyte (IEC 80000-13)

}  // namespace isoflop
