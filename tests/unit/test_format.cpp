#include <gtest/gtest.h>

#include "common/format.hpp"
#include "schema/counter_table.hpp"

namespace gpubench::detail {
namespace {

TEST(Format, UnitsFollowCounterNames) {
  EXPECT_EQ(UnitOfCounter(counter::kDramReadBytes), CounterUnit::kBytes);
  EXPECT_EQ(UnitOfCounter(counter::kBytesMoved), CounterUnit::kBytes);
  EXPECT_EQ(UnitOfCounter(counter::kDramBandwidth), CounterUnit::kBytesPerSecond);
  EXPECT_EQ(UnitOfCounter(counter::kBytesPerSecond), CounterUnit::kBytesPerSecond);
  EXPECT_EQ(UnitOfCounter(counter::kItemsPerSecond), CounterUnit::kPerSecond);
  EXPECT_EQ(UnitOfCounter(counter::kGpuDuration), CounterUnit::kSeconds);
  EXPECT_EQ(UnitOfCounter("kernel_time/CopyKernel"), CounterUnit::kSeconds);
  EXPECT_EQ(UnitOfCounter(counter::kSmClockMhz), CounterUnit::kMegahertz);
  EXPECT_EQ(UnitOfCounter(counter::kSmClockRatedMhz), CounterUnit::kMegahertz);
  EXPECT_EQ(UnitOfCounter(counter::kDramBandwidthPct), CounterUnit::kPercent);
  // Metrics added by name: CUPTI's unit, not a guess from the name.
  const std::map<std::string, std::string> cupti = {
      {"lts__t_sector_hit_rate.pct", "%"},
      {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "%"},
      {"lts__t_bytes.sum", "byte"},
      {"lts__t_bytes.sum.per_second", "byte/second"},
      {"smsp__inst_executed.sum", "inst"}};
  EXPECT_EQ(UnitOfCounter("lts__t_sector_hit_rate.pct"), CounterUnit::kPlain);
  EXPECT_EQ(UnitOfCounter("lts__t_sector_hit_rate.pct", cupti), CounterUnit::kPercent);
  EXPECT_EQ(UnitOfCounter("lts__t_bytes.sum", cupti), CounterUnit::kBytes);
  EXPECT_EQ(UnitOfCounter("lts__t_bytes.sum.per_second", cupti), CounterUnit::kBytesPerSecond);
  EXPECT_EQ(UnitOfCounter("smsp__inst_executed.sum", cupti), CounterUnit::kPlain);
  EXPECT_EQ(UnitOfCounter("sm__throughput.avg.pct_of_peak_sustained_elapsed", cupti),
            CounterUnit::kPercent);
  EXPECT_EQ(UnitOfCounter(counter::kSmClockThrottled), CounterUnit::kFlag);
  EXPECT_EQ(UnitOfCounter(counter::kProfilePasses), CounterUnit::kCount);
  EXPECT_EQ(UnitOfCounter("my_counter"), CounterUnit::kPlain);
}

TEST(Format, ValuesCarryTheirUnits) {
  EXPECT_EQ(FormatValue(805306368, CounterUnit::kBytes), "805 MB");
  EXPECT_EQ(FormatValue(4194304, CounterUnit::kBytes), "4.19 MB");
  EXPECT_EQ(FormatValue(512, CounterUnit::kBytes), "512 B");
  EXPECT_EQ(FormatValue(4.21e12, CounterUnit::kBytesPerSecond), "4.21 TB/s");
  EXPECT_EQ(FormatValue(2.33e-4, CounterUnit::kSeconds), "233 us");
  EXPECT_EQ(FormatValue(1.5e-3, CounterUnit::kSeconds), "1.5 ms");
  EXPECT_EQ(FormatValue(4.6e-9, CounterUnit::kSeconds), "4.6 ns");
  EXPECT_EQ(FormatValue(1980.4, CounterUnit::kMegahertz), "1980 MHz");
  EXPECT_EQ(FormatValue(70.06, CounterUnit::kPercent), "70.1 %");
  EXPECT_EQ(FormatValue(1, CounterUnit::kFlag), "yes");
  EXPECT_EQ(FormatValue(0, CounterUnit::kFlag), "no");
  EXPECT_EQ(FormatValue(9, CounterUnit::kCount), "9");
  EXPECT_EQ(FormatValue(0.125, CounterUnit::kPlain), "0.125");
}

}  // namespace
}  // namespace gpubench::detail

#include "gpu/plan/range_names.hpp"

namespace gpubench::detail {
namespace {

TEST(NvtxRangePath, EachNamePartIsANestedRange) {
  EXPECT_EQ(NvtxRangePath("BM_Copy/1048576"), (std::vector<std::string>{"BM_Copy", "1048576"}));
  EXPECT_EQ(NvtxRangePath("Fixture/Case/5/9"),
            (std::vector<std::string>{"Fixture", "Case", "5", "9"}));
  EXPECT_EQ(NvtxRangePath("BM_Tiny"), (std::vector<std::string>{"BM_Tiny"}));
  EXPECT_EQ(NvtxRangePath("a//b/"), (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace gpubench::detail
