#include "tools/base/student_t.hpp"

#include <cmath>

namespace gpubench::tools {
namespace {

constexpr double kPi = 3.14159265358979323846;

// P(|T| < t) for t >= 0: A(t|v) in Abramowitz & Stegun 26.7.3 (v odd) and 26.7.4 (v even),
// with theta = atan(t / sqrt(v)). The series are finite, so the result is exact up to rounding.
double CentralProbability(double t, int v) {
  if (std::isinf(t)) return 1;
  const double theta = std::atan(t / std::sqrt(static_cast<double>(v)));
  const double c2 = std::cos(theta) * std::cos(theta);
  double sum = 1, term = 1;
  if (v % 2 == 1) {
    if (v == 1) return 2 * theta / kPi;
    for (int k = 2; k <= v - 3; k += 2) {
      term *= c2 * k / (k + 1);
      sum += term;
    }
    return 2 / kPi * (theta + std::sin(theta) * std::cos(theta) * sum);
  }
  for (int k = 1; k <= v - 3; k += 2) {
    term *= c2 * k / (k + 1);
    sum += term;
  }
  return std::sin(theta) * sum;
}

}  // namespace

double StudentTUpperTail(double t, int degrees_of_freedom) {
  if (std::isnan(t) || degrees_of_freedom < 1) return std::nan("");
  const double central = CentralProbability(std::fabs(t), degrees_of_freedom);
  // 1 - central loses digits far in the tail; the gate's levels are around 1e-2.
  return t >= 0 ? (1 - central) / 2 : (1 + central) / 2;
}

double StudentTQuantileUpper(double upper_tail, int degrees_of_freedom) {
  if (!(upper_tail > 0 && upper_tail < 1) || degrees_of_freedom < 1) return std::nan("");
  if (upper_tail > 0.5) return -StudentTQuantileUpper(1 - upper_tail, degrees_of_freedom);
  double low = 0, high = 1;
  while (StudentTUpperTail(high, degrees_of_freedom) > upper_tail) high *= 2;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double middle = (low + high) / 2;
    (StudentTUpperTail(middle, degrees_of_freedom) > upper_tail ? low : high) = middle;
  }
  return (low + high) / 2;
}

}  // namespace gpubench::tools
