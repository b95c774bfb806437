// The stream plan (stream_plan.hpp): which of the body's streams the timed span joins, and
// when a body cannot be timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "gpu/plan/stream_plan.hpp"
#include "schema/counter_table.hpp"

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

// The waits that spare a hold check: only those for a stream the hold holds.
TEST(StreamPlan, AWaitCountsOnlyForAHeldStream) {
  const std::vector<StreamHandle> joined = {0x5000};
  EXPECT_EQ(HeldWait(0, joined, {}), "");
  EXPECT_EQ(HeldWait(0, joined, {{"cuCtxSynchronize", 0, true}}), "cuCtxSynchronize");
  // The timed stream, null meaning the legacy one on both sides.
  EXPECT_EQ(HeldWait(0, joined, {{"cuStreamSynchronize", kLegacyStream, false}}),
            "cuStreamSynchronize");
  EXPECT_EQ(HeldWait(0x7000, joined, {{"cuEventSynchronize", 0x7000, false}}),
            "cuEventSynchronize");
  EXPECT_EQ(HeldWait(0x7000, joined, {{"cuStreamSynchronize", 0x5000, false}}),
            "cuStreamSynchronize");  // a joined stream waits behind the hold too
  // A stream of its own, or the legacy stream beside another timed stream: no certain wait.
  EXPECT_EQ(HeldWait(0, joined, {{"cuStreamSynchronize", 0x9000, false}}), "");
  EXPECT_EQ(HeldWait(0x7000, joined, {{"cuMemcpyDtoH_v2", kLegacyStream, false}}), "");
  // The first that counts.
  EXPECT_EQ(
      HeldWait(0, joined, {{"cuStreamSynchronize", 0x9000, false}, {"cuMemcpyDtoH_v2", 0, false}}),
      "cuMemcpyDtoH_v2");
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

UndercountReference Profiled(double seconds) {
  return ChooseUndercountReference(0, seconds, false, "metrics off");
}
UndercountReference Busy(double seconds) {
  return ChooseUndercountReference(seconds, 0, false, "");
}

TEST(Undercount, FarBelowTheBusyTimeIsAnErrorThatSaysWhatWasCompared) {
  // The BM_OtherStream: 1.30 us timed, the 200 us copy on a stream made after the
  // warm-up (busy time from the activity records).
  const std::string error = CheckUndercount("BM_OtherStream", 1.30e-6, Busy(199.5e-6));
  EXPECT_NE(error.find("BM_OtherStream: the GPU time per iteration (1.3 us) is 0.7% of the "
                       "GPU's busy time in the same body (gpu_busy_time 199.5 us: the union of "
                       "its kernels, copies and memsets"),
            std::string::npos)
      << error;
  EXPECT_NE(error.find("the timed span missed GPU work"), std::string::npos) << error;
}

TEST(Undercount, WithoutBusyTimeTheProfiledDurationIsTheReference) {
  const std::string error = CheckUndercount("BM_OtherStream", 1.30e-6, Profiled(201.2e-6));
  EXPECT_NE(error.find("BM_OtherStream: the GPU time per iteration (1.3 us) is 0.6% of the same "
                       "body's profiled duration (gpu_duration 201.2 us; there was no busy time "
                       "to compare with: metrics off)"),
            std::string::npos)
      << error;
}

TEST(Undercount, TheBusyTimeWinsOverTheProfiledDuration) {
  // A public reduction suite's synchronising row, refused before (issue #37): 170 us of GPU
  // time against a 732.4 us profiled range; its GPU work is well inside the GPU time.
  const double busy = 152e-6;
  EXPECT_EQ(CheckUndercount("AddDuringLoad<float>/Reduce_float/20480000", 170e-6,
                            ChooseUndercountReference(busy, 732.4e-6, false, "")),
            "");
  EXPECT_NE(CheckUndercount("AddDuringLoad", 170e-6, Profiled(732.4e-6)), "");
  // An UntimedScope leaves work out of the GPU time that the profiled duration counts.
  EXPECT_LE(ChooseUndercountReference(0, 732.4e-6, true, "").seconds, 0);
  EXPECT_EQ(ChooseUndercountReference(120e-6, 732.4e-6, true, "").seconds, 120e-6);
}

// A GB JSON file with its bare NaN and Infinity values (counters no row here needs) as null,
// which nlohmann-json reads.
std::string WithoutNonFinite(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string word : {": -NaN", ": NaN", ": -Infinity", ": Infinity"}) {
    for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at)) {
      text.replace(at, word.size(), ": null");
    }
  }
  return text;
}

// Every measured row of the committed H200 runs that has a busy time passes the check held
// against it: 1705 rows in 72 files (kokkos/mdspan's synchronising suite, the gate's history
// runs, the cost, precision, sync, paused and thermal runs, the stream cases). Tracing made some
// rows' busy time up to 17% longer than their untraced GPU time: 0.8575 at the lowest, which is
// where kUndercountBusyRatio's margin is measured from; 0.8567 since the same suite's cost runs
// (mdspan_cost_49/2026-12-04_h200_580f7311, Sum_3D left_dyn_d80_80_d80: 23.1 ms against
// 27.0 ms); 0.8265 since its order checks (below). The case of a stream made after the warm-up was
// refused against its busy time, and still is.
TEST(Undercount, CommittedH200RowsPassAgainstTheirBusyTime) {
  const std::filesystem::path data = std::filesystem::path(GPUBENCH_SOURCE_DIR) / "tests/data/h200";
  const std::map<std::string, double> unit = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
  int rows = 0;
  std::set<std::string> files;
  double lowest = 1e9;
  std::string lowest_row;
  bool refused_late_stream = false;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    if (entry.path().extension() != ".json") continue;
    // Cut-off files (cutoff/) are the loader's test cases, not runs.
    const nlohmann::json run =
        nlohmann::json::parse(WithoutNonFinite(entry.path()), nullptr, /*allow_exceptions=*/false);
    if (run.is_discarded() || !run.is_object() || !run.contains("benchmarks")) continue;
    const std::string file = entry.path().lexically_relative(data).string();
    for (const nlohmann::json& row : run.at("benchmarks")) {
      const std::string name = row.at("name");
      if (row.value("error_occurred", false)) {
        if (name.rfind("Streams_CreatedAfterWarmup", 0) == 0) {
          // Its message names 1.728 us of GPU time against 180.5 us of busy time.
          const std::string message = row.value("error_message", "");
          EXPECT_NE(message.find("GPU time per iteration (1.728 us)"), std::string::npos);
          EXPECT_NE(message.find("of the GPU's busy time in the same body (gpu_busy_time 180.5 us"),
                    std::string::npos);
          refused_late_stream = CheckUndercount(name, 1.728e-6, Busy(180.5e-6)) != "";
        }
        continue;
      }
      // Aggregates are not calls (their stddev and cv hold a spread, not a time).
      if (!row.contains(counter::kGpuBusyTime) || row.value("run_type", "") != "iteration")
        continue;
      const double gpu = row.at(counter::kRealTime).get<double>() * unit.at(row.at("time_unit"));
      const double busy = row.at(counter::kGpuBusyTime).get<double>();
      EXPECT_EQ(CheckUndercount(name, gpu, Busy(busy)), "") << file;
      if (gpu / busy < lowest) {
        lowest = gpu / busy;
        lowest_row = file + " " + name;
      }
      files.insert(file);
      ++rows;
    }
  }
  EXPECT_GE(rows, 1705);  // more when runs are added; fewer means rows were not read
  EXPECT_GE(files.size(), 72u);
  // A new lowest row: recheck the ratio. Since 2026-12-06 the lowest is mdspan's left-layout sum
  // alone (order/h200_526a38a2/mdspan_sum_after/alone_1_1.json): 21.4 ms timed in a process
  // where its profiling child had measured the body busy for 25.8 ms, the two processes' data
  // placed apart (docs/accuracy.md "A number and what ran before it"). The refusal keeps more
  // than 0.1 of headroom over it (before that row: 0.8567, 0.15).
  EXPECT_NEAR(lowest, 0.8265, 0.0001) << lowest_row;
  EXPECT_GT(lowest, kUndercountBusyRatio + 0.1);
  EXPECT_TRUE(refused_late_stream);
}

// The gap: against the busy time an undercount of 15-75% was published. Now one of more
// than 30% is refused, at any size above the margin; one of less than 30% is what the check
// cannot see (tracing alone moves real rows by up to 14%).
TEST(Undercount, AgainstTheBusyTimeAnUndercountOfMoreThan30PercentIsRefused) {
  EXPECT_NE(CheckUndercount("BM_Half", 500e-6, Busy(1000e-6)), "");  // passed with 0.25
  EXPECT_NE(CheckUndercount("BM_Edge", 699e-6, Busy(1000e-6)), "");
  const std::string error = CheckUndercount("BM_Edge", 69e-6, Busy(100e-6));
  EXPECT_NE(error.find("BM_Edge: the GPU time per iteration (69 us) is 69.0% of the GPU's busy "
                       "time in the same body (gpu_busy_time 100 us"),
            std::string::npos)
      << error;
  EXPECT_EQ(CheckUndercount("BM_Edge", 701e-6, Busy(1000e-6)), "");
  EXPECT_EQ(CheckUndercount("BM_Traced", 857.5e-6, Busy(1000e-6)), "");  // the lowest real row
  // The margin: a body of 13 us that reads 9 us (4 us short) is within it, one of 20 us that
  // reads 13 us (7 us short) is not.
  EXPECT_EQ(CheckUndercount("BM_Tiny", 9e-6, Busy(13e-6)), "");
  EXPECT_NE(CheckUndercount("BM_Small", 13e-6, Busy(20e-6)), "");
  EXPECT_EQ(Busy(1e-3).blind_spot, "");
}

// The profiled duration keeps its coarse share and margin (it holds host time), and the row says
// what that check cannot see.
TEST(Undercount, AgainstTheProfiledDurationTheRowSaysWhatTheCheckCannotSee) {
  EXPECT_EQ(CheckUndercount("BM_Half", 500e-6, Profiled(1000e-6)), "");
  EXPECT_NE(CheckUndercount("BM_Quarter", 240e-6, Profiled(1000e-6)), "");
  EXPECT_EQ(Profiled(1000e-6).blind_spot,
            "the missed-work check held the GPU time against the profiled duration "
            "(gpu_duration), since there was no busy time (metrics off); that range also holds "
            "host time, so the check refuses only a row that missed more than 75% of its work "
            "and more than 100 us per iteration: a smaller undercount is not seen (against a "
            "busy time, gpu_busy_time, it refuses any row that misses more than 30%)");
  // No reference, nothing to say.
  EXPECT_EQ(ChooseUndercountReference(0, 732.4e-6, true, "").blind_spot, "");
}

TEST(Undercount, RealRowsPass) {
  // The lowest ratios among the committed H200 rows: a 7.2 us copy in a 19.4 us range, a
  // 64 us SGEMM in a 111 us range, a 3.5 us kernel in a 6.2 us range.
  EXPECT_EQ(CheckUndercount("Gate_Copy", 7.177e-6, Profiled(19.445e-6)), "");
  EXPECT_EQ(CheckUndercount("BM_Sgemm", 64.1e-6, Profiled(111.5e-6)), "");
  EXPECT_EQ(CheckUndercount("BM_TinyKernel", 3.48e-6, Profiled(6.20e-6)), "");
  // A 5.6 us kernel (7.2 us timed, cache=keep) whose profiled range held 55.9 us of host time
  // on an H200: within the margin.
  EXPECT_EQ(CheckUndercount("Gpu_Spin/10000", 7.179e-6, Profiled(55.9e-6)), "");
  // No reference: nothing to check.
  EXPECT_EQ(CheckUndercount("BM_NoMetrics", 1e-6, Profiled(0)), "");
  // Just outside both the ratio and the margin.
  EXPECT_NE(CheckUndercount("BM_Edge", 30e-6, Profiled(131e-6)), "");
  EXPECT_EQ(CheckUndercount("BM_Edge", 30e-6, Profiled(129e-6)), "");
  // A traced memory-bound copy reads 9% longer than untimed: far from the ratio.
  EXPECT_EQ(CheckUndercount("BM_Copy", 1.40e-3, Busy(1.47e-3)), "");
}

}  // namespace
}  // namespace gpubench::detail
