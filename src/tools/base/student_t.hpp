// Student's t distribution for integer degrees of freedom: what the gate's history model needs
// (a one-sided prediction bound on the median of a new run, and its p-value).
#pragma once

namespace gpubench::tools {

/// P(T > t) for T ~ Student's t with `degrees_of_freedom` >= 1 (exact closed forms for integer
/// degrees of freedom, Abramowitz & Stegun 26.7.3-4).
double StudentTUpperTail(double t, int degrees_of_freedom);

/// The t with P(T > t) = upper_tail, for 0 < upper_tail < 1 (bisection on the tail above).
double StudentTQuantileUpper(double upper_tail, int degrees_of_freedom);

}  // namespace gpubench::tools
