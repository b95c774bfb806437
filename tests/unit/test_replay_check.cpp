// The replay check's bookkeeping (gpu/cupti/replay_check.hpp): passes that launch other kernels
// than the first are named, with the profiled iteration where they differ.
#include <gtest/gtest.h>

#include "gpu/cupti/replay_check.hpp"

namespace gpubench::detail {
namespace {

void Pass(LaunchRecord& record, int pass, const std::vector<std::vector<std::string>>& ranges) {
  record.BeginPass(pass);
  for (const auto& kernels : ranges) {
    record.BeginRange();
    for (const auto& kernel : kernels) record.Add(kernel);
    record.EndRange();
  }
}

TEST(LaunchRecord, PassesLaunchingTheSameKernelsAgree) {
  LaunchRecord record;
  record.BeginSession();
  Pass(record, 0, {{"copy", "scale"}, {"copy", "scale"}});
  Pass(record, 1, {{"copy", "scale"}, {"copy", "scale"}});
  EXPECT_TRUE(record.CheckPass(0).ok());
  EXPECT_TRUE(record.CheckPass(1).ok());
}

TEST(LaunchRecord, APassWithOtherKernelsIsNamedWithItsIteration) {
  LaunchRecord record;
  record.BeginSession();
  Pass(record, 0, {{"copy"}, {"copy"}});
  Pass(record, 1, {{"copy"}, {"copy", "fixup"}});
  const Status status = record.CheckPass(1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("replay pass 2 launched different kernels than pass 1 in "
                                  "profiled iteration 1 (2 launch(es) copy fixup vs 1 launch(es) "
                                  "copy)"),
            std::string::npos)
      << status.message();
}

TEST(LaunchRecord, LaunchesOutsideARangeAndAMissingRangeAreSeen) {
  LaunchRecord record;
  record.BeginSession();
  Pass(record, 0, {{"copy"}, {"copy"}});
  record.Add("flush");  // between ranges: not the body's
  Pass(record, 1, {{"copy"}});
  const Status status = record.CheckPass(1);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("profiled iteration 1 (no range vs 1 launch(es) copy)"),
            std::string::npos)
      << status.message();
  // A new session forgets the old one.
  record.BeginSession();
  Pass(record, 0, {{"a"}});
  Pass(record, 1, {{"a"}});
  EXPECT_TRUE(record.CheckPass(1).ok());
}

}  // namespace
}  // namespace gpubench::detail
