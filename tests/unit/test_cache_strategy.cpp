// The cache strategy: what each policy does around the untimed bodies (FakeOps' log), and that
// the harness chooses it once from its settings. The timed phases each policy makes are pinned
// by the loop's tests (test_loop.cpp), whose logs are those of the policy's phase.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "measure/process/harness.hpp"
#include "measure/timing/cache_strategy.hpp"
#include "schema/context_keys.hpp"
#include "support/fakes.hpp"

namespace gpubench::testing {
namespace {

using detail::CacheStrategy;
using detail::KeyValues;
using detail::MakeCacheStrategy;

std::unique_ptr<CacheStrategy> StrategyOf(CachePolicy cache) {
  Settings settings;
  settings.cache = cache;
  return MakeCacheStrategy(settings);
}

// Each step once, in a call's order: prepare, warm-up, a profiled range, a busy body.
std::vector<std::string> UntimedSteps(const CacheStrategy& cache, FakeOps* ops, Log* log) {
  EXPECT_TRUE(cache.Prepare(*ops, nullptr).ok());
  log->Add("|");
  EXPECT_TRUE(cache.BeforeWarmupBody(*ops, nullptr).ok());
  log->Add("|");
  EXPECT_TRUE(cache.BeforeProfiledRange(*ops, nullptr).ok());
  log->Add("|");
  EXPECT_TRUE(cache.BeforeBusyBody(*ops, nullptr, "BM_X").ok());
  return log->events;
}

TEST(CacheStrategy, FlushPreparesTheFlushAndFlushesBeforeEachUntimedBody) {
  Log log;
  FakeOps ops(&log);
  const auto cache = StrategyOf(CachePolicy::kFlush);
  const std::vector<std::string> expected = {"prepare", "|", "flush", "|",
                                             "flush",   "|", "flush", "sync"};
  EXPECT_EQ(UntimedSteps(*cache, &ops, &log), expected);
  EXPECT_EQ(ops.flush_prepares, 1);
  EXPECT_TRUE(cache->HoldCheck());
}

TEST(CacheStrategy, KeepPreparesAloneAndFlushesNothing) {
  Log log;
  FakeOps ops(&log);
  const auto cache = StrategyOf(CachePolicy::kKeep);
  const std::vector<std::string> expected = {"prepare", "|", "|", "|"};
  EXPECT_EQ(UntimedSteps(*cache, &ops, &log), expected);
  EXPECT_EQ(ops.flush_prepares, 0);
  EXPECT_FALSE(cache->HoldCheck());
}

TEST(CacheStrategy, AFailedPrepareStopsBeforeTheFlushIsPrepared) {
  Log log;
  FakeOps ops(&log);
  ops.prepare_result = Status::Error("cudaSetDevice: no device");
  EXPECT_EQ(StrategyOf(CachePolicy::kFlush)->Prepare(ops, nullptr).message(),
            "cudaSetDevice: no device");
  EXPECT_EQ(ops.flush_prepares, 0);
}

TEST(CacheStrategy, DescribesTheFlushAndTheHoldForTheContextBlock) {
  detail::DeviceFacts facts;
  facts.available = true;
  facts.l2_bytes = 62914560;  // H200: a 120 MiB flush
  const KeyValues flush = StrategyOf(CachePolicy::kFlush)->Describe(facts);
  ASSERT_EQ(flush.size(), 2u);
  EXPECT_EQ(flush[0].first, context_key::kFlushDescription);
  EXPECT_EQ(flush[0].second.rfind("l2_read_evict: a read-only kernel streams 125829120 bytes", 0),
            0u)
      << flush[0].second;
  EXPECT_EQ(flush[1].first, context_key::kLaunchHoldDescription);
  EXPECT_EQ(flush[1].second.rfind("hold_kernel: ", 0), 0u) << flush[1].second;
  // Without a device the size is unknown.
  const KeyValues no_device = StrategyOf(CachePolicy::kFlush)->Describe(detail::DeviceFacts());
  EXPECT_NE(no_device[0].second.find("streams a buffer (2x L2)"), std::string::npos);

  const KeyValues keep = StrategyOf(CachePolicy::kKeep)->Describe(facts);
  const KeyValues expected = {
      {context_key::kFlushDescription, "none (cache=keep)"},
      {context_key::kLaunchHoldDescription,
       "none (cache=keep: the iterations run back to back in one timed region)"}};
  EXPECT_EQ(keep, expected);
}

TEST(CacheStrategy, TheHarnessChoosesItFromItsSettings) {
  detail::Harness harness;
  EXPECT_TRUE(harness.cache().HoldCheck());  // never configured: the default, cache=flush
  Settings keep;
  keep.cache = CachePolicy::kKeep;
  harness.Configure(keep, detail::DeviceFacts());
  EXPECT_FALSE(harness.cache().HoldCheck());
  harness.Configure(Settings(), detail::DeviceFacts());
  EXPECT_TRUE(harness.cache().HoldCheck());
}

// Before any benchmark, the harness makes what a call would make the first time: the policy's
// resources, the timer's events and CUPTI's first attachment for the stream watch, so that none
// of it lands between one benchmark's allocations and the next's.
TEST(CacheStrategy, TheHarnessPreparesThePolicysResourcesBeforeAnyBenchmark) {
  for (const CachePolicy policy : {CachePolicy::kFlush, CachePolicy::kKeep}) {
    Log log;
    auto ops = std::make_unique<FakeOps>(&log);
    auto timer = std::make_unique<FakeTimer>(&log);
    FakeOps* ops_seen = ops.get();
    FakeTimer* timer_seen = timer.get();
    auto watch = std::make_unique<FakeStreamWatch>();
    FakeStreamWatch* watch_seen = watch.get();
    detail::Harness harness;
    Settings settings;
    settings.cache = policy;
    harness.Configure(settings, detail::DeviceFacts());
    harness.SetBackendsForTesting(std::move(ops), std::move(timer), nullptr);
    harness.SetStreamWatchForTesting(std::move(watch));
    ASSERT_TRUE(harness.PrepareBeforeBenchmarks().ok());
    EXPECT_EQ(log.events, std::vector<std::string>{"prepare"});
    EXPECT_EQ(ops_seen->flush_prepares, policy == CachePolicy::kFlush ? 1 : 0);
    EXPECT_EQ(timer_seen->reserves, 1);
    EXPECT_EQ(watch_seen->bodies, 1);
  }
}

TEST(CacheStrategy, AFailedPreparationIsReportedAndLeavesTheTimerAlone) {
  Log log;
  auto ops = std::make_unique<FakeOps>(&log);
  ops->prepare_result = Status::Error("cudaMalloc (clock probe): out of memory");
  auto timer = std::make_unique<FakeTimer>(&log);
  FakeTimer* timer_seen = timer.get();
  detail::Harness harness;
  harness.Configure(Settings(), detail::DeviceFacts());
  harness.SetBackendsForTesting(std::move(ops), std::move(timer), nullptr);
  EXPECT_EQ(harness.PrepareBeforeBenchmarks().message(), "cudaMalloc (clock probe): out of memory");
  EXPECT_EQ(timer_seen->reserves, 0);
}

}  // namespace
}  // namespace gpubench::testing
