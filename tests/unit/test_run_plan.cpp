// The run plan (config/run_plan.hpp) and the counter routes it chooses
// (measure/profiling/counter_route.hpp): every mode Initialize decides, decided from its inputs
// alone.
#include <gtest/gtest.h>

#include <string>

#include "config/run_plan.hpp"
#include "measure/call/call_result.hpp"
#include "measure/profiling/counter_route.hpp"
#include "measure/profiling/profiling_pass.hpp"
#include "measure/profiling/profiling_policy.hpp"
#include "measure/publish/profile_log.hpp"
#include "support/fakes.hpp"

namespace gpubench::detail {
namespace {

PlanInputs GpubenchMain() {
  PlanInputs inputs;
  inputs.main_reports = true;
  return inputs;
}

RunPlan Draft(const PlanInputs& inputs) {
  Result<RunPlan> plan = DraftRunPlan(inputs);
  EXPECT_TRUE(plan.ok()) << plan.status().message();
  return plan.ok() ? plan.value() : RunPlan();
}

TEST(RunPlan, GpubenchsStoppingRuleNeedsMainAndNoTimeAskedOfGb) {
  PlanInputs inputs = GpubenchMain();
  inputs.settings.stopping = Stopping::kPrecision;
  RunPlan plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kPrecision);
  EXPECT_EQ(plan.settings.stopping_note, "");
  EXPECT_TRUE(plan.gpubench_counts());

  inputs.gb_min_time = "0.2s";
  plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kGb);
  EXPECT_FALSE(plan.gpubench_counts());
  EXPECT_NE(plan.settings.stopping_note.find("--benchmark_min_time=0.2s"), std::string::npos)
      << plan.settings.stopping_note;

  inputs.gb_min_time.clear();
  inputs.main_reports = false;
  plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kGb);
  EXPECT_NE(plan.settings.stopping_note.find("a main of your own"), std::string::npos)
      << plan.settings.stopping_note;

  inputs.settings.stopping = Stopping::kGb;  // asked for: no note
  plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kGb);
  EXPECT_EQ(plan.settings.stopping_note, "");
}

// A main of one's own keeps GB's rule without being asked: the console says so once (not the
// profiling child, which runs the same main); a rule the user asked for needs no note.
TEST(RunPlan, OnlyAnUnaskedRuleOfAMainOfOnesOwnIsSaidOnTheConsole) {
  PlanInputs inputs = GpubenchMain();
  EXPECT_EQ(Draft(inputs).console_note, "");
  inputs.main_reports = false;
  const std::string note = Draft(inputs).console_note;
  EXPECT_EQ(note.rfind("gpubench: GB's rule: a main of your own", 0), 0u) << note;
  EXPECT_NE(note.find("gpubench::Main(argc, argv)"), std::string::npos) << note;
  EXPECT_EQ(note.back(), '\n');
  inputs.child_file = "/tmp/gpubench-profiling-x";
  EXPECT_EQ(Draft(inputs).console_note, "");
  inputs.child_file.clear();
  inputs.gb_min_time = "0.2s";  // the user asked GB for its time
  EXPECT_EQ(Draft(inputs).console_note, "");
  inputs.gb_min_time.clear();
  inputs.settings.stopping = Stopping::kGb;  // the user asked for GB's rule
  EXPECT_EQ(Draft(inputs).console_note, "");
}

TEST(RunPlan, AMainOfOnesOwnGetsGpubenchsRuleThroughACountGbNamesNowhere) {
  PlanInputs inputs = GpubenchMain();
  EXPECT_FALSE(Draft(inputs).counts_by_flag);  // Main's reporters restore the names
  inputs.main_reports = false;
  inputs.global_count_refusal.clear();  // GB >= 1.8, every benchmark gpubench's
  RunPlan plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kPrecision);
  EXPECT_TRUE(plan.gpubench_counts());
  EXPECT_TRUE(plan.counts_by_flag);
  EXPECT_EQ(plan.console_note, "");
  EXPECT_EQ(plan.settings.stopping_note, "");
  // A benchmark the count would change too: GB's rule, and why, on the console.
  inputs.global_count_refusal = "BM_Cpu is registered with GB's own macro";
  plan = Draft(inputs);
  EXPECT_EQ(plan.settings.stopping, Stopping::kGb);
  EXPECT_FALSE(plan.counts_by_flag);
  EXPECT_NE(plan.console_note.find("BM_Cpu is registered with GB's own macro"), std::string::npos)
      << plan.console_note;
  // Asked for GB's rule: no count at all.
  inputs.global_count_refusal.clear();
  inputs.settings.stopping = Stopping::kGb;
  EXPECT_FALSE(Draft(inputs).counts_by_flag);
}

TEST(RunPlan, DeviceOrderIsAllAtOnceOnlyInAChildOfSuchARun) {
  PlanInputs inputs = GpubenchMain();
  inputs.settings.device_order = DeviceOrder::kAllAtOnce;  // asked of the parent
  EXPECT_EQ(Draft(inputs).settings.device_order, DeviceOrder::kOneAtATime);
  inputs.devices_at_once = true;
  EXPECT_EQ(Draft(inputs).settings.device_order, DeviceOrder::kAllAtOnce);
}

TEST(RunPlan, DevicesNeedGpubenchsMain) {
  PlanInputs inputs;
  inputs.devices_asked = true;
  const Result<RunPlan> refused = DraftRunPlan(inputs);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message().rfind("--gpubench_devices needs GPUBENCH_MAIN()", 0), 0u)
      << refused.status().message();
  inputs.main_reports = true;
  EXPECT_TRUE(DraftRunPlan(inputs).ok());
}

TEST(RunPlan, IntendedProfilingRole) {
  PlanInputs inputs = GpubenchMain();
  EXPECT_EQ(Draft(inputs).profiling, ProfilingRole::kParent);  // the default: profile_process=child
  inputs.settings.profile_process = ProfileProcess::kSame;
  EXPECT_EQ(Draft(inputs).profiling, ProfilingRole::kInProcess);
  inputs.settings.profile_process = ProfileProcess::kChild;
  inputs.cuda_tool = "/opt/ncu/libInjection.so";  // no child under ncu or nsys
  EXPECT_EQ(Draft(inputs).profiling, ProfilingRole::kInProcess);
  inputs.cuda_tool.clear();
  inputs.child_file = "/tmp/gpubench-profiling-x";
  const RunPlan child = Draft(inputs);
  EXPECT_EQ(child.profiling, ProfilingRole::kChild);
  EXPECT_TRUE(child.is_profiling_child());
  EXPECT_EQ(child.child_file, "/tmp/gpubench-profiling-x");
  inputs.settings.profile_iterations = 0;
  EXPECT_EQ(Draft(inputs).profiling, ProfilingRole::kNone);
}

TEST(RunPlan, AChildRunsFirstOnlyForTheParentWithADeviceAndSomethingToMeasure) {
  RunPlan plan = Draft(GpubenchMain());
  ASSERT_EQ(plan.profiling, ProfilingRole::kParent);
  EXPECT_TRUE(plan.runs_child_first(/*device_available=*/true, /*nothing_measured=*/false));
  EXPECT_FALSE(plan.runs_child_first(false, false));
  EXPECT_FALSE(plan.runs_child_first(true, true));
  plan.profiling = ProfilingRole::kInProcess;
  EXPECT_FALSE(plan.runs_child_first(true, false));
}

TEST(RunPlan, TheChildStartsBeforeTheDeviceQueryWhereADriverIsAndNoTurnIsTaken) {
  PlanInputs inputs = GpubenchMain();
  RunPlan plan = Draft(inputs);
  EXPECT_TRUE(plan.starts_child_before_device_query(/*driver_present=*/true,
                                                    /*nothing_measured=*/false));
  EXPECT_FALSE(plan.starts_child_before_device_query(false, false));
  EXPECT_FALSE(plan.starts_child_before_device_query(true, true));
  inputs.settings.exclusive = Exclusive::kWait;  // the turn comes first, after the query
  EXPECT_FALSE(Draft(inputs).starts_child_before_device_query(true, false));
  inputs.settings.exclusive = Exclusive::kWarn;
  inputs.settings.profile_iterations = 0;
  EXPECT_FALSE(Draft(inputs).starts_child_before_device_query(true, false));
}

TEST(RunPlan, OnlyTheProfilingChildStartsCuptisProfilerBeforeItsContext) {
  PlanInputs inputs = GpubenchMain();
  EXPECT_FALSE(Draft(inputs).prepares_profiler_before_context(/*driver_present=*/true,
                                                              /*nothing_measured=*/false));
  inputs.child_file = "/tmp/gpubench-profiling-x";
  const RunPlan child = Draft(inputs);
  EXPECT_TRUE(child.prepares_profiler_before_context(true, false));
  EXPECT_FALSE(child.prepares_profiler_before_context(false, false));
  EXPECT_FALSE(child.prepares_profiler_before_context(true, true));
  inputs.settings.profile_iterations = 0;  // no profiler at all
  EXPECT_FALSE(Draft(inputs).prepares_profiler_before_context(true, false));
  inputs.settings.profile_iterations = 1;
  inputs.child_file.clear();
  inputs.settings.profile_process = ProfileProcess::kSame;  // profiles where it times
  EXPECT_FALSE(Draft(inputs).prepares_profiler_before_context(true, false));
}

TEST(RunPlan, TheGpuLockIsTakenByTheTimingProcessOnly) {
  PlanInputs inputs = GpubenchMain();
  inputs.settings.exclusive = Exclusive::kWait;
  const RunPlan plan = Draft(inputs);
  EXPECT_TRUE(plan.takes_gpu_lock(/*device_available=*/true, /*list_metrics=*/false));
  EXPECT_FALSE(plan.takes_gpu_lock(false, false));
  EXPECT_FALSE(plan.takes_gpu_lock(true, true));
  inputs.child_file = "/tmp/gpubench-profiling-x";  // the parent holds it already
  EXPECT_FALSE(Draft(inputs).takes_gpu_lock(true, false));
  inputs.child_file.clear();
  inputs.settings.exclusive = Exclusive::kWarn;
  EXPECT_FALSE(Draft(inputs).takes_gpu_lock(true, false));
}

TEST(RunPlan, TimerCuptiIsRefusedUnderAnotherCudaTool) {
  PlanInputs inputs = GpubenchMain();
  inputs.settings.timer = Timer::kCupti;
  EXPECT_TRUE(RefuseUnderCudaTool(Draft(inputs)).ok());
  EXPECT_TRUE(Draft(inputs).per_kernel_times());
  inputs.cuda_tool = "/opt/nsys/libToolsInjection64.so";
  const Status refused = RefuseUnderCudaTool(Draft(inputs));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("use --gpubench_timer=events under that tool"),
            std::string::npos);
  inputs.settings.timer = Timer::kEvents;
  EXPECT_TRUE(RefuseUnderCudaTool(Draft(inputs)).ok());
  EXPECT_FALSE(Draft(inputs).per_kernel_times());
}

TEST(RunPlan, FinalProfilingRole) {
  Settings settings;
  const ProfilingPassFiles none;
  const ProfilingPassFiles writes{/*writes_sessions=*/true, /*read_child=*/false};
  const ProfilingPassFiles read{/*writes_sessions=*/false, /*read_child=*/true};
  EXPECT_EQ(FinishProfilingRole(settings, true, none), ProfilingRole::kInProcess);
  EXPECT_EQ(FinishProfilingRole(settings, false, none), ProfilingRole::kNone);
  EXPECT_EQ(FinishProfilingRole(settings, true, writes), ProfilingRole::kChild);
  EXPECT_EQ(FinishProfilingRole(settings, false, writes), ProfilingRole::kNone);
  // The parent has no profiler of its own: the child's header said it had one.
  EXPECT_EQ(FinishProfilingRole(settings, false, read), ProfilingRole::kParent);
  settings.profile_iterations = 0;
  EXPECT_EQ(FinishProfilingRole(settings, true, read), ProfilingRole::kNone);
  EXPECT_EQ(FinishProfilingRole(settings, true, writes), ProfilingRole::kNone);
}

class CounterRouteTest : public ::testing::Test {
 protected:
  std::unique_ptr<CounterRoute> Route(ProfilingRole role) {
    return MakeCounterRoute(role, {pass_, policy_, log_, settings_});
  }
  Settings settings_;
  ProfilingPass pass_;
  ProfilingPolicy policy_;
  ProfileLog log_;
};

TEST_F(CounterRouteTest, EachRoleHasItsRoute) {
  for (ProfilingRole role : {ProfilingRole::kNone, ProfilingRole::kInProcess,
                             ProfilingRole::kParent, ProfilingRole::kChild}) {
    const auto route = Route(role);
    SCOPED_TRACE(ProfilingRoleName(role));
    EXPECT_EQ(route->role(), role);
    EXPECT_EQ(route->TimesCalls(), role != ProfilingRole::kChild);
    EXPECT_EQ(route->ChargesProfilingWall(),
              role == ProfilingRole::kInProcess || role == ProfilingRole::kChild);
    EXPECT_EQ(route->ProfilesAfterTiming(), role == ProfilingRole::kInProcess);
    EXPECT_EQ(route->LogsFailedSessions(), role != ProfilingRole::kParent);
  }
}

TEST_F(CounterRouteTest, WhoProfilesTheCall) {
  CallResult call;
  call.instance = "BM_Copy/1024";
  EXPECT_TRUE(Route(ProfilingRole::kNone)->SettleWithoutSession(&call));
  EXPECT_EQ(call.profile.kind, ProfileOutcome::Kind::kNone);
  EXPECT_FALSE(Route(ProfilingRole::kChild)->SettleWithoutSession(&call));
  // Nothing profiled yet: no trial copy, a session runs here.
  EXPECT_FALSE(Route(ProfilingRole::kInProcess)->SettleWithoutSession(&call));
  // The parent takes the child's session; a child that has none for the instance says so.
  EXPECT_TRUE(Route(ProfilingRole::kParent)->SettleWithoutSession(&call));
  EXPECT_EQ(call.profile.kind, ProfileOutcome::Kind::kFailed);
  EXPECT_FALSE(call.profile.error.empty());
}

TEST_F(CounterRouteTest, OnlyTheChildEndsItsCallsBySkippingThem) {
  testing::FakeSharingMonitor sharing({});
  CallResult call;
  call.instance = "BM_Copy/1024";
  for (ProfilingRole role :
       {ProfilingRole::kNone, ProfilingRole::kInProcess, ProfilingRole::kParent}) {
    EXPECT_TRUE(Route(role)->EndCall(sharing, call).ok()) << ProfilingRoleName(role);
  }
  const Status skipped = Route(ProfilingRole::kChild)->EndCall(sharing, call);
  ASSERT_FALSE(skipped.ok());
  EXPECT_EQ(skipped.message(), kProfilingPassSkip);
  EXPECT_NE(pass_.Find("BM_Copy/1024"), nullptr);
  EXPECT_TRUE(Route(ProfilingRole::kChild)->AlreadyProfiled("BM_Copy/1024"));
  EXPECT_FALSE(Route(ProfilingRole::kChild)->AlreadyProfiled("BM_Copy/2048"));
}

}  // namespace
}  // namespace gpubench::detail
