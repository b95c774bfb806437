#include "tools/base/student_t.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tools/gate/suite_statistics.hpp"

namespace gpubench::tools {
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
}  // namespace gpubench::tools

namespace gpubench::tools {
namespace {

TEST(NormalQuantile, AgreesWithTheTQuantileOfManyDegrees) {
  EXPECT_NEAR(NormalQuantileUpper(0.025), 1.959964, 1e-6);
  EXPECT_NEAR(NormalQuantileUpper(0.01 / 20), 3.290527, 1e-6);
  EXPECT_NEAR(NormalQuantileUpper(1e-6), 4.753424, 1e-6);
  EXPECT_NEAR(NormalQuantileUpper(0.3), 0.524401, 1e-6);
  EXPECT_NEAR(NormalQuantileUpper(0.975), -1.959964, 1e-6);
  EXPECT_NEAR(NormalQuantileUpper(0.01 / 20), StudentTQuantileUpper(0.01 / 20, 20000), 1e-3);
}

// What would decide an undecided benchmark: runs, or that no number of runs can.
TEST(HistoryAdvice, NamesTheRunsNeededOrThatNoneSuffice) {
  // sd 1.94%, 20 tests: z(1 - 0.0005) x 1.94 = 6.4% > 5%.
  EXPECT_THAT(HistoryAdvice(1.94, 10, 0.01 / 20), ::testing::HasSubstr("no number of runs"));
  // sd 0.96%: z x 0.96 = 3.16% < 5%, so some number of runs will do. The factors t(1 - 0.01/20,
  // n - 1) x sqrt(1 + 1/n) (scipy: stats.t.isf(0.0005, n - 1) * sqrt(1 + 1 / n)) are 5.314 for
  // 9 runs and 5.014 for 10: 9 runs give 5.10%, 10 runs 4.81%, so 10 are needed.
  const std::string advice = HistoryAdvice(0.96, 6, 0.01 / 20);
  EXPECT_THAT(advice, ::testing::HasSubstr("a history of 10 runs (now 6) would bring its "
                                           "threshold under 5%"));
  EXPECT_NEAR(HistoryFactor(0.01 / 20, 9), 5.314003, 1e-6);
  EXPECT_NEAR(HistoryFactor(0.01 / 20, 10), 5.014263, 1e-6);
  const std::size_t needed = std::stoul(advice.substr(advice.find("of ") + 3));
  EXPECT_LE(HistoryFactor(0.01 / 20, needed) * 0.96, 5.0);
  EXPECT_GT(HistoryFactor(0.01 / 20, needed - 1) * 0.96, 5.0);
}

TEST(GeometricMeanRatio, IsTheMeanOfTheLogarithmsWithATInterval) {
  const SuiteRatio none = GeometricMeanRatio({});
  EXPECT_EQ(none.benchmarks, 0u);
  const SuiteRatio one = GeometricMeanRatio({1.21});
  EXPECT_DOUBLE_EQ(one.geometric_mean, 1.21);
  EXPECT_FALSE(one.low.has_value());
  const SuiteRatio two = GeometricMeanRatio({1.21, 1.0, -1, NAN});  // non-positive, NaN dropped
  EXPECT_EQ(two.benchmarks, 2u);
  EXPECT_NEAR(two.geometric_mean, 1.1, 1e-12);
  // t(0.975, 1) = 12.706: log(1.1) +- 12.706 x sd(log) / sqrt(2).
  const double sd = std::fabs(std::log(1.21)) / std::sqrt(2.0);
  EXPECT_NEAR(*two.high, std::exp(std::log(1.1) + 12.706 * sd / std::sqrt(2.0)), 1e-3);
  EXPECT_NEAR(*two.low * *two.high, 1.21, 1e-9);  // symmetric on the log scale
}

}  // namespace
}  // namespace gpubench::tools
