// Which activity records of a busy measurement belong to which iteration (issue #37 item 4):
// the loop thread's by their correlation ids, another thread's by the host time of the call.
#include <gtest/gtest.h>

#include "gpu/plan/busy_attribution.hpp"

namespace gpubench::detail {
namespace {

constexpr uint32_t kLaunch = 211;  // any runtime callback id
constexpr uint32_t kSync = 165;

// Two iterations of a body on the host: [1000, 2000) and [5000, 6000) ns, the second paused
// (an UntimedScope) over [5400, 5600).
std::vector<std::vector<HostWindow>> TwoIterations() {
  return {{{1000, 2000}}, {{5000, 5400}, {5600, 6000}}};
}

TEST(BusyAttribution, TheLoopThreadsWorkGoesByItsCorrelationId) {
  ActivityRecords records;
  records.gpu = {{1, 1100, 1300, true, "k"}, {2, 5100, 5500, true, "k"}};
  records.runtime = {{1, kLaunch, 1010, 1020}, {2, kLaunch, 5010, 5020}};
  const std::unordered_map<uint32_t, uint64_t> iteration_of = {{1, 0}, {2, 1}};
  const BusyAttribution found = AttributeBusy(records, iteration_of, TwoIterations());
  EXPECT_EQ(found.iterations, 2);
  EXPECT_DOUBLE_EQ(found.busy_seconds, (200 + 400) * 1e-9 / 2);
  EXPECT_DOUBLE_EQ(found.work_items, 1.0);
  EXPECT_DOUBLE_EQ(found.other_thread_items, 0.0);
  ASSERT_EQ(found.calls.size(), 1u);
  EXPECT_DOUBLE_EQ(found.calls[0].count, 1.0);
}

TEST(BusyAttribution, AnotherThreadsWorkCountsWhenItsCallStartedInsideTheBody) {
  // A persistent worker thread launches the body's kernel (runtime call 7, no external id) and
  // waits for it (call 8); the body waits for the worker. Before this, busy time read 0.
  ActivityRecords records;
  records.gpu = {{7, 1200, 1800, true, "copy"}};
  records.runtime = {{7, kLaunch, 1050, 1060}, {8, kSync, 1061, 1810}};
  const BusyAttribution found = AttributeBusy(records, {}, {{{1000, 2000}}});
  EXPECT_DOUBLE_EQ(found.busy_seconds, 600e-9);
  EXPECT_DOUBLE_EQ(found.work_items, 1.0);
  EXPECT_DOUBLE_EQ(found.other_thread_items, 1.0);
  EXPECT_EQ(found.calls.size(), 2u);  // the worker's calls are the body's too
  // A launch with the driver API (a library's cuLaunchKernel) is placed by the driver record.
  ActivityRecords driver;
  driver.gpu = {{9, 2500, 2900, true, "lib"}};  // ran after the body returned
  driver.driver = {{9, 307, 1900, 1905}};
  EXPECT_DOUBLE_EQ(AttributeBusy(driver, {}, {{{1000, 2000}}}).busy_seconds, 400e-9);
}

TEST(BusyAttribution, WorkOutsideTheBodyOrInsideAScopeIsNobodys) {
  ActivityRecords records;
  // gpubench's flush between iterations, another thread's launch inside the scope, one after
  // the last iteration, and a record whose call is unknown, placed by its own start.
  records.gpu = {{20, 3000, 3500, true, "flush"},
                 {21, 5450, 5550, true, "in_scope"},
                 {22, 7000, 7100, true, "later"},
                 {23, 1500, 1600, false, ""}};
  records.runtime = {
      {20, kLaunch, 2990, 2995}, {21, kLaunch, 5410, 5420}, {22, kLaunch, 6990, 6995}};
  const BusyAttribution found = AttributeBusy(records, {}, TwoIterations());
  EXPECT_DOUBLE_EQ(found.busy_seconds, 100e-9 / 2);  // only record 23, in iteration 0
  EXPECT_DOUBLE_EQ(found.work_items, 0.5);
  EXPECT_DOUBLE_EQ(found.other_thread_items, 0.5);
  EXPECT_TRUE(found.calls.empty());
  // An id beyond the iterations measured (a body left half-way) counts nowhere.
  ActivityRecords stray;
  stray.gpu = {{30, 1100, 1200, true, "k"}};
  EXPECT_DOUBLE_EQ(AttributeBusy(stray, {{30, 5}}, TwoIterations()).work_items, 0.0);
  EXPECT_EQ(AttributeBusy(stray, {}, {}).iterations, 0);
}

TEST(BusyAttribution, OverlappingWorkCountsOnce) {
  ActivityRecords records;
  records.gpu = {{1, 1100, 1500, true, "a"}, {2, 1300, 1700, true, "b"}};
  records.runtime = {{1, kLaunch, 1010, 1020}, {2, kLaunch, 1030, 1040}};
  const BusyAttribution found = AttributeBusy(records, {{1, 0}}, {{{1000, 2000}}});
  EXPECT_DOUBLE_EQ(found.busy_seconds, 600e-9);
  EXPECT_DOUBLE_EQ(found.work_items, 2.0);
  EXPECT_DOUBLE_EQ(found.other_thread_items, 1.0);
}

}  // namespace
}  // namespace gpubench::detail
