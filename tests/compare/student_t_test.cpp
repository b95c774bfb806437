#include "tools/base/student_t.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace gpubench::compare {
namespace {

// Reference values: scipy 1.10.1, stats.t.ppf(0.99, df) and stats.t.sf(3.0, df).
struct Reference {
  int degrees;
  double quantile_99, tail_at_3;
};
constexpr Reference kScipy[] = {
    {1, 31.82051595375758, 0.10241638234956672},
    {2, 6.964556718755855, 0.047732983133354556},
    {3, 4.540702858698419, 0.028834442811218657},
    {4, 3.7469473879811366, 0.019970984035859413},
    {5, 3.3649299989072747, 0.015049623948731284},
    {8, 2.896459442760522, 0.008535840616891317},
    {9, 2.8214379233005493, 0.007478181955207101},
    {19, 2.539483190622288, 0.0036808620919343196},
    {30, 2.4572615424005697, 0.002694982032825972},
    {100, 2.3642173659047376, 0.0017039576716647257},
    {1000, 2.3300826747555097, 0.0013833545221190939},
};

TEST(StudentT, AgreesWithScipy) {
  for (const Reference& r : kScipy) {
    EXPECT_NEAR(StudentTQuantileUpper(0.01, r.degrees), r.quantile_99, 1e-7 * r.quantile_99)
        << r.degrees;
    EXPECT_NEAR(StudentTUpperTail(3.0, r.degrees), r.tail_at_3, 1e-9) << r.degrees;
  }
}

TEST(StudentT, IsSymmetricAndMonotone) {
  for (int degrees : {1, 2, 7, 40}) {
    EXPECT_DOUBLE_EQ(StudentTUpperTail(0, degrees), 0.5);
    EXPECT_NEAR(StudentTUpperTail(-2.5, degrees), 1 - StudentTUpperTail(2.5, degrees), 1e-15);
    EXPECT_NEAR(StudentTQuantileUpper(0.9, degrees), -StudentTQuantileUpper(0.1, degrees), 1e-9);
    EXPECT_GT(StudentTUpperTail(1, degrees), StudentTUpperTail(2, degrees));
    EXPECT_EQ(StudentTUpperTail(INFINITY, degrees), 0);
  }
}

TEST(StudentT, RejectsWhatHasNoAnswer) {
  EXPECT_TRUE(std::isnan(StudentTUpperTail(1, 0)));
  EXPECT_TRUE(std::isnan(StudentTUpperTail(NAN, 3)));
  EXPECT_TRUE(std::isnan(StudentTQuantileUpper(0, 3)));
  EXPECT_TRUE(std::isnan(StudentTQuantileUpper(1, 3)));
}

}  // namespace
}  // namespace gpubench::compare
