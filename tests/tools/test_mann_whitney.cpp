// Expected values come from scipy 1.10.1 (python3-scipy on Debian 12):
//   scipy.stats.mannwhitneyu(x, y, use_continuity=True,
//                            alternative="two-sided", method=METHOD)
// statistic is U of x; pvalue the two-sided p-value.
#include "tools/base/mann_whitney.hpp"

#include <gtest/gtest.h>

#include <ostream>
#include <vector>

namespace gpubench::tools {
namespace {

struct ScipyCase {
  const char* name;
  std::vector<double> x, y;
  MannWhitneyMethod method;
  double expected_u;
  double expected_p;
};

// Keeps test names readable in ctest (gtest prints parameters in them).
void PrintTo(const ScipyCase& c, std::ostream* os) { *os << c.name; }

class MannWhitneyAgainstScipy : public ::testing::TestWithParam<ScipyCase> {};

TEST_P(MannWhitneyAgainstScipy, MatchesStatisticAndPValue) {
  const ScipyCase& c = GetParam();
  const MannWhitneyResult result = MannWhitneyU(c.x, c.y, c.method).value();
  EXPECT_DOUBLE_EQ(result.u_statistic, c.expected_u);
  EXPECT_NEAR(result.p_value, c.expected_p, 1e-12 + 1e-9 * c.expected_p);
}

INSTANTIATE_TEST_SUITE_P(
    Scipy, MannWhitneyAgainstScipy,
    ::testing::Values(
        // mannwhitneyu([1,2,3,4,5], [6,7,8,9,10], method="exact")
        ScipyCase{"exact_separated_5v5",
                  {1, 2, 3, 4, 5},
                  {6, 7, 8, 9, 10},
                  MannWhitneyMethod::kExact,
                  0.0,
                  0.007936507936507936},
        // mannwhitneyu([1.1,2.3,3.7,4.2,5.9], [2.0,3.1,4.8,6.5,7.2,8.8], method="exact")
        ScipyCase{"exact_overlap_5v6",
                  {1.1, 2.3, 3.7, 4.2, 5.9},
                  {2.0, 3.1, 4.8, 6.5, 7.2, 8.8},
                  MannWhitneyMethod::kExact,
                  8.0,
                  0.24675324675324672},
        // mannwhitneyu([1,2], [3,4], method="exact")
        ScipyCase{"exact_2v2", {1, 2}, {3, 4}, MannWhitneyMethod::kExact, 0.0, 0.3333333333333333},
        // mannwhitneyu([10.5,11.2,9.8], [12.1,9.9,13.4,11.9,12.7,10.1,14.2,13.3],
        //              method="exact")
        ScipyCase{"exact_3v8",
                  {10.5, 11.2, 9.8},
                  {12.1, 9.9, 13.4, 11.9, 12.7, 10.1, 14.2, 13.3},
                  MannWhitneyMethod::kExact,
                  4.0,
                  0.13333333333333333},
        // mannwhitneyu([100,101,99,102,98,103,97,104,96,105],
        //              [106,107,99.5,108,109,110,95,111,112,113], method="asymptotic")
        ScipyCase{"asym_10v10",
                  {100, 101, 99, 102, 98, 103, 97, 104, 96, 105},
                  {106, 107, 99.5, 108, 109, 110, 95, 111, 112, 113},
                  MannWhitneyMethod::kAsymptotic,
                  16.0,
                  0.011329696684474665},
        // mannwhitneyu([1,2,2,3,3], [2,3,4,4,5], method="asymptotic")  (ties)
        ScipyCase{"asym_ties_5v5",
                  {1, 2, 2, 3, 3},
                  {2, 3, 4, 4, 5},
                  MannWhitneyMethod::kAsymptotic,
                  4.0,
                  0.08567343955231686},
        // mannwhitneyu([5,5,5], [5,5,5], method="asymptotic")  (all tied)
        ScipyCase{"asym_all_tied", {5, 5, 5}, {5, 5, 5}, MannWhitneyMethod::kAsymptotic, 4.5, 1.0},
        // mannwhitneyu([1,1,2], [2,3,3], method="auto")  (ties: asymptotic)
        ScipyCase{"auto_ties_small",
                  {1, 1, 2},
                  {2, 3, 3},
                  MannWhitneyMethod::kAuto,
                  0.5,
                  0.11014892418594699},
        // mannwhitneyu(range(12), [i + 3.5 for i in range(9)], method="auto")
        ScipyCase{"auto_large_12v9",
                  {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
                  {3.5, 4.5, 5.5, 6.5, 7.5, 8.5, 9.5, 10.5, 11.5},
                  MannWhitneyMethod::kAuto,
                  36.0,
                  0.2136207303090525}),
    [](const ::testing::TestParamInfo<ScipyCase>& info) { return info.param.name; });

TEST(MannWhitney, AutoChoosesExactWithoutTiesForSmallSamples) {
  EXPECT_EQ(MannWhitneyU({1, 2, 3}, {4, 5, 6}).value().method_used, MannWhitneyMethod::kExact);
  EXPECT_EQ(MannWhitneyU({1, 2, 3}, {3, 5, 6}).value().method_used, MannWhitneyMethod::kAsymptotic);
  std::vector<double> nine_a, nine_b;
  for (int i = 0; i < 9; ++i) {
    nine_a.push_back(i);
    nine_b.push_back(i + 0.5);
  }
  EXPECT_EQ(MannWhitneyU(nine_a, nine_b).value().method_used, MannWhitneyMethod::kAsymptotic);
}

TEST(MannWhitney, IsSymmetricInItsSamples) {
  const std::vector<double> x = {1.1, 2.3, 3.7, 4.2, 5.9}, y = {2.0, 3.1, 4.8, 6.5, 7.2, 8.8};
  EXPECT_DOUBLE_EQ(MannWhitneyU(x, y).value().p_value, MannWhitneyU(y, x).value().p_value);
}

TEST(MannWhitney, RejectsEmptySamples) {
  const auto rejected = MannWhitneyU({}, {1.0});
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.status().code(), gpubench::detail::Status::Code::kInvalidInput);
}

TEST(MannWhitney, SmallestPossiblePValueExplainsFewRepetitions) {
  // 2 / C(n1 + n2, n1): with 2 and 2 repetitions p is never below 1/3.
  EXPECT_NEAR(SmallestPossiblePValue(2, 2), 1.0 / 3, 1e-12);
  EXPECT_NEAR(SmallestPossiblePValue(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(SmallestPossiblePValue(4, 4), 2.0 / 70, 1e-12);
  EXPECT_NEAR(SmallestPossiblePValue(1, 5), 1.0 / 3, 1e-12);  // 2 / C(6, 1)
  EXPECT_EQ(SmallestPossiblePValue(1, 1), 1.0);
  EXPECT_EQ(RepetitionsNeededForSignificance(0.05), 4u);
  EXPECT_EQ(RepetitionsNeededForSignificance(0.01), 5u);
}

}  // namespace
}  // namespace gpubench::tools
