// The stream plan (stream_plan.hpp): which of the body's streams the timed span joins, and
// when a body cannot be timed.
#include <gtest/gtest.h>

#include "gpu/stream_plan.hpp"

namespace gpubench::detail {
namespace {

StreamUse Use(StreamHandle stream, const std::string& call = "cuLaunchKernel", int calls = 1) {
  StreamUse use;
  use.stream = stream;
  use.first_call = call;
  use.calls = calls;
  return use;
}

TEST(StreamPlan, NullMeansLegacyExceptInPerThreadCalls) {
  EXPECT_EQ(NormalizeStream(0, false), kLegacyStream);
  EXPECT_EQ(NormalizeStream(0, true), kPerThreadStream);
  EXPECT_EQ(NormalizeStream(0x1234, true), 0x1234u);
  EXPECT_EQ(DescribeStream(0), "the legacy default stream");
  EXPECT_EQ(DescribeStream(kPerThreadStream), "the per-thread default stream");
  EXPECT_EQ(DescribeStream(0xabc0), "stream 0xabc0");
}

TEST(StreamPlan, TheTimedStreamIsNeverJoined) {
  // The loop's default (nullptr) is the legacy stream, as is a null stream in the body's calls.
  const StreamPlan plan = PlanStreams(0, {Use(kLegacyStream), Use(0)});
  EXPECT_TRUE(plan.known);
  EXPECT_TRUE(plan.joined.empty());
  EXPECT_EQ(plan.error, "");
  EXPECT_EQ(PlanStreams(0x5000, {Use(0x5000)}).joined.size(), 0u);
}

TEST(StreamPlan, EveryOtherStreamIsJoinedInFirstUseOrder) {
  const StreamPlan plan =
      PlanStreams(0x5000, {Use(0x6000, "cuLaunchKernel", 4), Use(kLegacyStream, "cuMemcpy"),
                           Use(kPerThreadStream, "cuLaunchKernel_ptsz"), Use(0x5000)});
  EXPECT_EQ(plan.joined, (std::vector<StreamHandle>{0x6000, kLegacyStream, kPerThreadStream}));
  EXPECT_EQ(plan.note,
            "stream 0x6000 (4 call(s), first cuLaunchKernel); the legacy default stream (1 "
            "call(s), first cuMemcpy); the per-thread default stream (1 call(s), first "
            "cuLaunchKernel_ptsz)");
}

TEST(StreamPlan, AStreamCreatedOnceInsideTheBodyIsJoined) {
  // A library that creates its stream at first use (the warm-up) and keeps it.
  StreamUse lazy = Use(0x6000);
  lazy.created_in_body = true;
  lazy.non_blocking = true;
  const StreamPlan plan = PlanStreams(0, {lazy});
  EXPECT_EQ(plan.error, "");
  EXPECT_EQ(plan.joined, (std::vector<StreamHandle>{0x6000}));
}

TEST(StreamPlan, AStreamCreatedAndDestroyedInTheBodyCannotBeTimed) {
  StreamUse temporary = Use(0x6000, "cuMemcpyAsync", 2);
  temporary.created_in_body = true;
  temporary.non_blocking = true;
  temporary.destroyed_in_body = true;
  const StreamPlan plan = PlanStreams(0, {temporary});
  EXPECT_NE(plan.error.find("the body puts GPU work (2 call(s), first cuMemcpyAsync) on stream "
                            "0x6000, a stream it creates and destroys in every iteration"),
            std::string::npos)
      << plan.error;
  // A blocking stream orders with the legacy default stream by itself: nothing to join.
  temporary.non_blocking = false;
  EXPECT_EQ(PlanStreams(0, {temporary}).error, "");
  EXPECT_TRUE(PlanStreams(0, {temporary}).joined.empty());
  // ...but not with a timed stream of the user's.
  EXPECT_NE(PlanStreams(0x5000, {temporary}).error, "");
  // Destroyed without being created in the body: its handle is gone by the next span.
  StreamUse destroyed = Use(0x6000);
  destroyed.destroyed_in_body = true;
  EXPECT_NE(PlanStreams(0, {destroyed}).error.find("a stream it destroys in every iteration"),
            std::string::npos);
}

TEST(StreamPlan, WorkFromAnotherThreadIsJoinedAndSaidSo) {
  StreamUse other = Use(0x6000);
  other.other_thread = true;
  const StreamPlan plan = PlanStreams(0, {other});
  EXPECT_EQ(plan.joined, (std::vector<StreamHandle>{0x6000}));
  EXPECT_NE(plan.note.find("from another host thread"), std::string::npos) << plan.note;
  // Another thread's per-thread default stream has no name on this thread.
  StreamUse per_thread = Use(kPerThreadStream, "cuLaunchKernel_ptsz");
  per_thread.other_thread = true;
  EXPECT_NE(PlanStreams(0, {per_thread}).error.find("another host thread's per-thread default"),
            std::string::npos);
}

TEST(Undercount, FarBelowTheProfiledDurationIsAnError) {
  // The BM_OtherStream: 1.30 us timed, 201.2 us profiled.
  const std::string error = CheckUndercount("BM_OtherStream", 1.30e-6, 201.2e-6);
  EXPECT_NE(error.find("BM_OtherStream: the GPU time per iteration (1.3 us) is 0.6% of the same "
                       "body's profiled duration (gpu_duration 201.2 us)"),
            std::string::npos)
      << error;
}

TEST(Undercount, RealRowsPass) {
  // The lowest ratios among the committed H200 rows: a 7.2 us copy in a 19.4 us range, a
  // 64 us SGEMM in a 111 us range, a 3.5 us kernel in a 6.2 us range.
  EXPECT_EQ(CheckUndercount("Gate_Copy", 7.177e-6, 19.445e-6), "");
  EXPECT_EQ(CheckUndercount("BM_Sgemm", 64.1e-6, 111.5e-6), "");
  EXPECT_EQ(CheckUndercount("BM_TinyKernel", 3.48e-6, 6.20e-6), "");
  // A 5.6 us kernel (7.2 us timed, cache=keep) whose profiled range held 55.9 us of host time
  // on an H200: within the margin.
  EXPECT_EQ(CheckUndercount("Gpu_Spin/10000", 7.179e-6, 55.9e-6), "");
  // No profiled duration: nothing to check.
  EXPECT_EQ(CheckUndercount("BM_NoMetrics", 1e-6, 0), "");
  // Just outside both the ratio and the margin.
  EXPECT_NE(CheckUndercount("BM_Edge", 30e-6, 131e-6), "");
  EXPECT_EQ(CheckUndercount("BM_Edge", 30e-6, 129e-6), "");
}

}  // namespace
}  // namespace gpubench::detail
