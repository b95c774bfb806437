// --gpubench_reuse's CPU logic: the source reader on committed files (tests/data/reuse/) and
// links and folders made here, another user's file or folder through a FileCalls that reports
// another owner for what the kernel opened; and the decision's codes and the order of its checks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <string>

#include "common/file_calls.hpp"
#include "gb/gb_internals.hpp"
#include "gpu/plan/work_signature.hpp"
#include "gpubench/counters.hpp"
#include "measure/reuse/call_reuse.hpp"
#include "measure/reuse/reuse_decision.hpp"
#include "measure/reuse/reuse_source.hpp"

namespace gpubench::detail {
namespace {

const std::string kData = std::string(GPUBENCH_SOURCE_DIR) + "/tests/data/reuse/";

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

Result<ReuseSource> Load(const std::string& path) {
  return LoadReuseSource(path, SystemFileCalls());
}

// A folder of this test's own under the test temp folder, removed with what it holds.
class TempFolder {
 public:
  TempFolder() {
    path_ = ::testing::TempDir() + "gpubench-reuse-" + std::to_string(::getpid()) + "-" +
            std::to_string(counter_++);
    ::mkdir(path_.c_str(), 0700);
  }
  ~TempFolder() {
    for (const std::string& name : made_) std::remove((path_ + "/" + name).c_str());
    ::rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::string Link(const std::string& name, const std::string& target) {
    made_.push_back(name);
    EXPECT_EQ(::symlink(target.c_str(), (path_ + "/" + name).c_str()), 0);
    return path_ + "/" + name;
  }
  std::string Write(const std::string& name, const std::string& text) {
    made_.push_back(name);
    std::ofstream(path_ + "/" + name) << text;
    return path_ + "/" + name;
  }

 private:
  static inline int counter_ = 0;
  std::string path_;
  std::vector<std::string> made_;
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The kernel's calls, but what it opened or looked at may be reported as another user's: the
// tests cannot chown a file to someone else.
class OtherOwnerCalls : public FileCalls {
 public:
  std::optional<uid_t> file_owner;    // reported for every opened file
  std::optional<uid_t> folder_owner;  // reported for every folder looked at (lstat)
  int Open(const std::string& path, int flags, mode_t mode) override {
    return System().Open(path, flags, mode);
  }
  int Fstat(int fd, struct stat* info) override {
    const int result = System().Fstat(fd, info);
    if (result >= 0 && file_owner) info->st_uid = *file_owner;
    return result;
  }
  int Lstat(const std::string& path, struct stat* info) override {
    const int result = System().Lstat(path, info);
    if (result >= 0 && S_ISDIR(info->st_mode) && folder_owner) info->st_uid = *folder_owner;
    return result;
  }
  int Mkdir(const std::string& path, mode_t mode) override { return System().Mkdir(path, mode); }
  int Fchmod(int fd, mode_t mode) override { return System().Fchmod(fd, mode); }
  int Ftruncate(int fd, off_t length) override { return System().Ftruncate(fd, length); }
  int Close(int fd) override { return System().Close(fd); }
  uid_t EffectiveUid() override { return System().EffectiveUid(); }

 private:
  static FileCalls& System() { return SystemFileCalls(); }
};

uid_t SomeoneElse() { return ::geteuid() == 4242 ? 4243 : 4242; }

// ---- Dates ----

TEST(ReuseSource, GbDatesAreReadWithTheirOffset) {
  double seconds = 0;
  ASSERT_TRUE(ParseGbDate("2026-12-06T20:38:55+00:00", &seconds));
  EXPECT_EQ(seconds, 1796589535.0);  // date -u -d 2026-12-06T20:38:55 +%s
  ASSERT_TRUE(ParseGbDate("2026-12-06T21:38:55+01:00", &seconds));
  EXPECT_EQ(seconds, 1796589535.0);
  ASSERT_TRUE(ParseGbDate("2026-12-06T15:08:55-0530", &seconds));
  EXPECT_EQ(seconds, 1796589535.0);
  ASSERT_TRUE(ParseGbDate("2026-12-06T20:38:55Z", &seconds));
  EXPECT_EQ(seconds, 1796589535.0);
  ASSERT_TRUE(ParseGbDate("1970-01-01T00:00:01.5+00:00", &seconds));
  EXPECT_EQ(seconds, 1.5);
  ASSERT_TRUE(ParseGbDate("2024-02-29T00:00:00+00:00", &seconds));  // a leap day
  EXPECT_EQ(seconds, 1709164800.0);
  for (const char* bad : {"", "yesterday", "2026-13-01T00:00:00+00:00", "2026-12-06",
                          "2026-12-06T20:38:55+00:00 extra", "2026-12-06T20:38:55+0"}) {
    EXPECT_FALSE(ParseGbDate(bad, &seconds)) << bad;
  }
}

// ---- One file ----

TEST(ReuseSource, AGoodRunIsReadWithItsIdentityRowsAndCounters) {
  Result<ReuseSource> loaded = Load(kData + "good_run.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const ReuseSource& source = loaded.value();
  EXPECT_EQ(source.path, kData + "good_run.json");
  EXPECT_EQ(source.date, "2026-12-06T20:38:55+00:00");
  EXPECT_EQ(source.date_unix, 1796589535.0);
  EXPECT_EQ(source.commit, "5ad3312");
  EXPECT_EQ(source.identity.gpu_uuid, "GPU-526a38a2-f48c-6609-5bf2-bd6276af17f3");
  EXPECT_EQ(source.identity.driver_version, "580.159.04");
  EXPECT_EQ(source.identity.settings_fingerprint, "f95d79d94ab94df0");
  EXPECT_EQ(source.identity.method_version, "6");
  EXPECT_EQ(source.Describe(), kData + "good_run.json (2026-12-06T20:38:55+00:00, commit 5ad3312)");
  // 5 iteration rows; the aggregate (BM_Copy's mean) is left out.
  EXPECT_EQ(source.rows.size(), 5u);
  EXPECT_EQ(source.Find("BM_Copy/1048576/manual_time_mean", 0), nullptr);
  const SourceRow* copy = source.Find("BM_Copy/1048576/manual_time", 1);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->repetition, 1);
  EXPECT_EQ(copy->iterations, 1000);
  EXPECT_DOUBLE_EQ(copy->real_time_seconds, 6342.5e-9);
  EXPECT_FALSE(copy->error);
  EXPECT_EQ(copy->counters.at("work_signature"), static_cast<double>(0xa1b2c3d4e5f6ULL));
  EXPECT_EQ(copy->counters.at("reused_runs"), 2.0);
  // GB's own numbers are not counters.
  for (const char* own : {"real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                          "threads", "family_index"}) {
    EXPECT_EQ(copy->counters.count(own), 0u) << own;
  }
  const SourceRow* sum = source.Find("BM_Sum/400/manual_time", 0);
  ASSERT_NE(sum, nullptr);
  EXPECT_DOUBLE_EQ(sum->real_time_seconds, 0.1455);  // ms
  const SourceRow* sync = source.Find("BM_SyncLoop/1048576/manual_time", 0);
  ASSERT_NE(sync, nullptr);
  EXPECT_DOUBLE_EQ(sync->real_time_seconds, 32.9e-6);  // us
  const SourceRow* broken = source.Find("BM_Broken/manual_time", 0);
  ASSERT_NE(broken, nullptr);
  EXPECT_TRUE(broken->error);
  EXPECT_TRUE(source.notes.empty());
}

TEST(ReuseSource, ARowNameIsReadAsGpubenchNamesItsInstance) {
  EXPECT_EQ(InstanceOfRowName("BM_Copy/1048576/manual_time"), "BM_Copy/1048576");
  EXPECT_EQ(InstanceOfRowName("BM_Copy/1048576"), "BM_Copy/1048576");
  EXPECT_EQ(InstanceOfRowName("BM_TinyKernel/manual_time"), "BM_TinyKernel");
  EXPECT_EQ(InstanceOfRowName("CopyOnStream/Copy/67108864/manual_time"),
            "CopyOnStream/Copy/67108864");
  EXPECT_EQ(InstanceOfRowName("BM_Sum/n:400/block:256/repeats:3/manual_time"), "BM_Sum/400/256");
  EXPECT_EQ(InstanceOfRowName("BM_Plain/8/min_time:0.500/iterations:10/real_time/threads:1"),
            "BM_Plain/8");
  // A tagged device reads the same from the instance and from the row.
  EXPECT_EQ(InstanceOfRowName("BM_Copy/8/gpu:1"),
            InstanceOfRowName("BM_Copy/n:8/gpu:1/manual_time"));
  // A C++ name in the first part keeps its "::"; a later "::" part is no named argument.
  EXPECT_EQ(InstanceOfRowName("ns::BM_Copy/8/manual_time"), "ns::BM_Copy/8");
  EXPECT_EQ(InstanceOfRowName("Fixture/ns::Method/8"), "Fixture/ns::Method/8");
  // A family that is itself called like a GB suffix keeps its name.
  EXPECT_EQ(InstanceOfRowName("manual_time"), "manual_time");
}

// A real first run of a series (the examples on an H100 with --gpubench_reuse=EMPTY_FOLDER): the
// loop asks for each row by its instance's name, which GB's row names extend.
TEST(ReuseSource, EachRowOfARealRunIsFoundByItsInstanceName) {
  Result<ReuseSource> loaded = Load(kData + "h100_examples_first.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const ReuseSource& source = loaded.value();
  EXPECT_EQ(source.rows.size(), 8u);
  EXPECT_TRUE(source.notes.empty());
  const double now = source.date_unix + 60;
  for (const char* instance :
       {"BM_Copy/1048576", "BM_Copy/536870912", "CopyOnStream/Copy/67108864", "BM_Saxpy/536870912",
        "BM_Unfused/536870912", "BM_Fused/536870912", "BM_Fma/2112", "BM_TinyKernel"}) {
    const SourceRow* row = source.Find(instance, 0);
    ASSERT_NE(row, nullptr) << instance;
    EXPECT_EQ(row->name, std::string(instance) + "/manual_time");
    ASSERT_EQ(row->counters.count("work_signature"), 1u) << instance;
    const auto signature = static_cast<uint64_t>(row->counters.at("work_signature"));
    const ReuseDecision decision =
        DecideReuse(&source, RunDifference(source.identity, source.identity), instance, 0,
                    signature, "", ReuseRules{}, now);
    EXPECT_EQ(std::string(ReuseStatusNameOf(decision.status)), "reused")
        << instance << ": " << decision.why;
    EXPECT_EQ(source.Find(instance, 1), nullptr) << instance;
  }
}

TEST(ReuseSource, TwoRowsOfOneNameAndRepetitionAreNeitherReused) {
  TempFolder folder;
  std::string text = ReadText(kData + "good_run.json");
  // A second "BM_Sum" row of repetition 0 (the same text once more before the last row).
  const size_t start = text.find("    {\n      \"name\": \"BM_Sum/400/manual_time\"");
  const size_t end = text.find("    },\n", start) + 7;
  ASSERT_NE(start, std::string::npos);
  text.insert(start, text.substr(start, end - start));
  Result<ReuseSource> loaded = Load(folder.Write("twice.json", text));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded.value().Find("BM_Sum/400/manual_time", 0)->error);
  ASSERT_EQ(loaded.value().notes.size(), 1u);
  EXPECT_TRUE(Contains(loaded.value().notes[0], "two rows named BM_Sum/400/manual_time"))
      << loaded.value().notes[0];
}

TEST(ReuseSource, BadFilesAreRefusedWithTheFileAndTheReason) {
  const struct {
    const char* file;
    const char* reason;
  } cases[] = {
      {"cut_off.json", " is cut off: its JSON ends early"},
      {"not_gpubench.json", " is not a gpubench run: its context has no gpubench_version"},
      {"not_json.json", " is not JSON"},
      {"no_rows.json", " has no benchmark rows"},
      {"missing.json", " does not exist"},
  };
  for (const auto& bad : cases) {
    Result<ReuseSource> loaded = Load(kData + bad.file);
    ASSERT_FALSE(loaded.ok()) << bad.file;
    const std::string& message = loaded.status().message();
    EXPECT_EQ(loaded.status().code(), Status::Code::kInvalidInput) << message;
    EXPECT_TRUE(Contains(message, kData + bad.file + bad.reason)) << message;
    // What would be right (a missing file names it too).
    EXPECT_TRUE(Contains(message, "--benchmark_out=FILE")) << message;
  }
}

TEST(ReuseSource, AnEmptyFileIsRefused) {
  TempFolder folder;
  Result<ReuseSource> loaded = Load(folder.Write("empty.json", "\n"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(), "empty.json is empty"))
      << loaded.status().message();
}

TEST(ReuseSource, ALinkIsRefusedNotFollowed) {
  TempFolder folder;
  const std::string link = folder.Link("run.json", kData + "good_run.json");
  Result<ReuseSource> loaded = Load(link);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(), link + " is a symbolic link"))
      << loaded.status().message();
  // A link to a folder of runs, too.
  const std::string folder_link = folder.Link("history", kData + "history");
  loaded = Load(folder_link);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(), folder_link + " is a symbolic link"))
      << loaded.status().message();
}

TEST(ReuseSource, AnotherUsersFileOrFolderIsRefused) {
  OtherOwnerCalls calls;
  calls.file_owner = SomeoneElse();
  Result<ReuseSource> loaded = LoadReuseSource(kData + "good_run.json", calls);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(),
                       kData + "good_run.json belongs to uid " + std::to_string(SomeoneElse())))
      << loaded.status().message();

  OtherOwnerCalls folder_calls;
  folder_calls.folder_owner = SomeoneElse();
  loaded = LoadReuseSource(kData + "good_run.json", folder_calls);
  ASSERT_FALSE(loaded.ok());
  const std::string folder = kData.substr(0, kData.size() - 1);
  EXPECT_TRUE(Contains(loaded.status().message(),
                       folder + " belongs to uid " + std::to_string(SomeoneElse())))
      << loaded.status().message();
  loaded = LoadReuseSource(kData + "history", folder_calls);
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(),
                       kData + "history belongs to uid " + std::to_string(SomeoneElse())))
      << loaded.status().message();

  // A folder of root's (/tmp, a mount) holds this user's runs as well as their own.
  OtherOwnerCalls root_folder;
  root_folder.folder_owner = 0;
  loaded = LoadReuseSource(kData + "good_run.json", root_folder);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
}

// ---- A folder ----

TEST(ReuseSource, AFolderGivesItsNewestGpubenchRunByDateThenName) {
  Result<ReuseSource> loaded = Load(kData + "history");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  // z_newest_in_utc.json: 08:45Z. a_older_in_utc.json reads 09:30 but at +01:00 (08:30Z);
  // plain_gb_newest.json is newer but plain GB's, so it is passed over with a note;
  // notes.txt is not looked at.
  EXPECT_EQ(loaded.value().path, kData + "history/z_newest_in_utc.json");
  EXPECT_EQ(loaded.value().commit, "bbbb222");
  ASSERT_EQ(loaded.value().notes.size(), 1u);
  EXPECT_TRUE(Contains(loaded.value().notes[0],
                       "plain_gb_newest.json is not a gpubench run: its context has no "
                       "gpubench_version"))
      << loaded.value().notes[0];
  // A trailing slash reads the same folder.
  loaded = Load(kData + "history/");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded.value().path, kData + "history/z_newest_in_utc.json");
}

TEST(ReuseSource, AFolderWhoseNewestRunIsCutOffGivesTheNextNewestAndSaysSo) {
  Result<ReuseSource> loaded = Load(kData + "broken_history");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(loaded.value().path, kData + "broken_history/run_1.json");
  EXPECT_EQ(loaded.value().commit, "cccc333");
  ASSERT_EQ(loaded.value().notes.size(), 1u);
  EXPECT_TRUE(Contains(loaded.value().notes[0], "passed over in the reuse folder " + kData +
                                                    "broken_history: " + kData +
                                                    "broken_history/run_2.json is cut off"))
      << loaded.value().notes[0];
}

TEST(ReuseSource, AFolderWithoutUsableRunsIsRefusedWithEachFilesReason) {
  TempFolder empty;
  Result<ReuseSource> loaded = Load(empty.path());
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(Contains(loaded.status().message(), empty.path() + " holds no *.json run"))
      << loaded.status().message();

  TempFolder broken;
  broken.Write("a.json", ReadText(kData + "cut_off.json"));
  broken.Write("b.json", ReadText(kData + "not_gpubench.json"));
  broken.Link("c.json", kData + "good_run.json");  // a link among the runs is not followed
  loaded = Load(broken.path());
  ASSERT_FALSE(loaded.ok());
  const std::string& message = loaded.status().message();
  EXPECT_TRUE(Contains(message, broken.path() + " holds no usable gpubench run")) << message;
  EXPECT_TRUE(Contains(message, "a.json is cut off")) << message;
  EXPECT_TRUE(Contains(message, "b.json is not a gpubench run")) << message;
  EXPECT_TRUE(Contains(message, "c.json is a symbolic link")) << message;
}

// ---- The decision ----

constexpr double kNow = 1796600000;  // 2026-12-06T23:33:20Z
constexpr uint64_t kSignature = 0xa1b2c3d4e5f6ULL;

// A source of one row that every check passes: signed as kSignature, measured an hour ago,
// held, fully busy.
ReuseSource OneRowSource() {
  ReuseSource source;
  source.path = "prev.json";
  source.date = "2026-12-06T22:33:20+00:00";
  source.date_unix = kNow - 3600;
  SourceRow row;
  row.name = "BM_Copy/manual_time";
  row.real_time_seconds = 6.3e-6;
  row.counters = {{"work_signature", static_cast<double>(kSignature)},
                  {"launch_held", 1},
                  {"gpu_busy_pct", 67.6}};
  source.rows[{InstanceOfRowName(row.name), 0}] = row;
  return source;
}

SourceRow& TheRow(ReuseSource& source) { return source.rows.begin()->second; }

ReuseDecision Decide(const ReuseSource* source, const ReuseRules& rules = {},
                     std::optional<uint64_t> signature = kSignature,
                     const std::string& run_difference = "", int repetition = 0) {
  return DecideReuse(source, run_difference, "BM_Copy/manual_time", repetition, signature,
                     signature ? "" : "the body launched a graph", rules, kNow);
}

std::string Name(const ReuseDecision& decision) {
  return std::string(ReuseStatusNameOf(decision.status));
}

TEST(ReuseDecision, AMatchingRowIsReusedWithItsStreakAndMeasurementTime) {
  ReuseSource source = OneRowSource();
  ReuseDecision decision = Decide(&source);
  EXPECT_EQ(Name(decision), "reused") << decision.why;
  EXPECT_EQ(decision.status, kReuseStatusReused);
  EXPECT_EQ(decision.row, &TheRow(source));
  EXPECT_EQ(decision.reused_runs, 1);            // the source row was measured
  EXPECT_EQ(decision.measured_at, kNow - 3600);  // the source run's date
  TheRow(source).counters["reused_runs"] = 3;
  TheRow(source).counters["measured_at"] = kNow - 5 * 86400;
  decision = Decide(&source);
  EXPECT_EQ(Name(decision), "reused") << decision.why;
  EXPECT_EQ(decision.reused_runs, 4);
  EXPECT_EQ(decision.measured_at, kNow - 5 * 86400);  // the row's own, not the run's date
}

TEST(ReuseDecision, EachCheckMeasuresTheRowAndNamesTheValueThatDecided) {
  { EXPECT_EQ(Name(Decide(nullptr)), "no_source"); }
  {
    ReuseSource source = OneRowSource();
    const ReuseDecision decision =
        Decide(&source, {}, kSignature, "the source run's driver is '570.1', this run's '580.2'");
    EXPECT_EQ(Name(decision), "run_differs");
    EXPECT_EQ(decision.why, "the source run's driver is '570.1', this run's '580.2'");
  }
  {
    ReuseSource source = OneRowSource();
    const ReuseDecision decision = Decide(&source, {}, std::nullopt);
    EXPECT_EQ(Name(decision), "unsigned");
    EXPECT_EQ(decision.why, "the body launched a graph");
  }
  {
    ReuseSource source = OneRowSource();
    const ReuseDecision decision = Decide(&source, {}, kSignature, "", 1);
    EXPECT_EQ(Name(decision), "new");
    EXPECT_TRUE(Contains(decision.why, "no row of repetition 1")) << decision.why;
  }
  {
    ReuseSource source = OneRowSource();
    TheRow(source).error = true;
    const ReuseDecision decision = Decide(&source);
    EXPECT_EQ(Name(decision), "new");
    EXPECT_TRUE(Contains(decision.why, "skipped or failed")) << decision.why;
  }
  {
    // A source row whose work was not signed whole: its signature matches by chance only.
    ReuseSource source = OneRowSource();
    TheRow(source).counters["reuse_status"] = 7;
    const ReuseDecision decision = Decide(&source);
    EXPECT_EQ(Name(decision), "unsigned");
    EXPECT_TRUE(Contains(decision.why, "not signed whole")) << decision.why;
    TheRow(source).counters["reuse_status"] = 3;  // changed then, signed whole
    EXPECT_EQ(Name(Decide(&source)), "reused");
  }
  {
    ReuseSource source = OneRowSource();
    const ReuseDecision decision = Decide(&source, {}, kSignature + 1);
    EXPECT_EQ(Name(decision), "changed");
    EXPECT_EQ(decision.why, "the work signature is a1b2c3d4e5f7, the source row's a1b2c3d4e5f6");
    TheRow(source).counters.erase("work_signature");
    EXPECT_EQ(Decide(&source).why, "the source row has no work_signature");
  }
  {
    ReuseSource source = OneRowSource();
    TheRow(source).counters["reused_runs"] = 5;
    const ReuseDecision decision = Decide(&source);
    EXPECT_EQ(Name(decision), "streak");
    EXPECT_TRUE(Contains(decision.why, "reused 5 runs in a row")) << decision.why;
    TheRow(source).counters["reused_runs"] = 4;
    EXPECT_EQ(Name(Decide(&source)), "reused");  // at most 5 in a row: this is the fifth
  }
  {
    ReuseSource source = OneRowSource();
    ReuseRules rules;
    rules.max_runs = 0;  // measure everything
    const ReuseDecision decision = Decide(&source, rules);
    EXPECT_EQ(Name(decision), "streak");
    EXPECT_TRUE(Contains(decision.why, "--gpubench_reuse_max_runs=0")) << decision.why;
  }
  {
    ReuseSource source = OneRowSource();
    TheRow(source).counters["measured_at"] = kNow - 8 * 86400;
    const ReuseDecision decision = Decide(&source);
    EXPECT_EQ(Name(decision), "aged");
    EXPECT_TRUE(Contains(decision.why, "measured 8.0 days ago")) << decision.why;
    ReuseRules rules;
    rules.max_age_seconds = 9 * 86400;
    EXPECT_EQ(Name(Decide(&source, rules)), "reused");
    // Without measured_at, the source run's date.
    TheRow(source).counters.erase("measured_at");
    source.date_unix = kNow - 7 * 86400 - 1;
    EXPECT_EQ(Name(Decide(&source)), "aged");
    source.date_unix = 0;  // no age at all
    EXPECT_TRUE(Contains(Decide(&source).why, "age is not known")) << Decide(&source).why;
  }
  {
    ReuseSource source = OneRowSource();
    TheRow(source).counters["launch_held"] = 0;
    TheRow(source).counters["gpu_busy_pct"] = 71.24;
    const ReuseDecision decision = Decide(&source);
    EXPECT_EQ(Name(decision), "host_bound");
    EXPECT_TRUE(Contains(decision.why, "gpu_busy_pct is 71.2%, below 99%")) << decision.why;
    TheRow(source).counters["gpu_busy_pct"] = 99.5;
    EXPECT_EQ(Name(Decide(&source)), "reused");
    TheRow(source).counters.erase("gpu_busy_pct");
    EXPECT_EQ(Name(Decide(&source)), "host_bound");
    TheRow(source).counters.erase("launch_held");  // cache=keep: no hold
    TheRow(source).counters["gpu_busy_pct"] = 98.9;
    EXPECT_EQ(Name(Decide(&source)), "host_bound");
  }
  {
    // Held: the idle time of a short held kernel is the timer's floor, not the host's.
    ReuseSource source = OneRowSource();
    TheRow(source).counters["gpu_busy_pct"] = 20.1;
    EXPECT_EQ(Name(Decide(&source)), "reused");
    TheRow(source).counters.erase("gpu_busy_pct");  // metrics off
    EXPECT_EQ(Name(Decide(&source)), "reused");
  }
}

// Every pair of neighbouring checks, both failing: the earlier one decides.
TEST(ReuseDecision, TheChecksRunInTheirOrder) {
  ReuseSource source = OneRowSource();
  // Everything wrong with the row at once.
  TheRow(source).counters["launch_held"] = 0;
  TheRow(source).counters["gpu_busy_pct"] = 10;
  ReuseRules rules;
  rules.max_age_seconds = 1;  // aged
  EXPECT_EQ(Name(Decide(&source, rules)), "aged");
  TheRow(source).counters["reused_runs"] = 9;
  EXPECT_EQ(Name(Decide(&source, rules)), "streak");
  EXPECT_EQ(Name(Decide(&source, rules, kSignature + 1)), "changed");
  TheRow(source).error = true;
  EXPECT_EQ(Name(Decide(&source, rules, kSignature + 1)), "new");
  EXPECT_EQ(Name(Decide(&source, rules, kSignature + 1, "the GPU differs")), "run_differs");
  EXPECT_EQ(Name(Decide(nullptr, rules, kSignature + 1, "the GPU differs")), "no_source");
  EXPECT_EQ(Name(Decide(nullptr, rules, std::nullopt, "the GPU differs")), "unsigned");
}

TEST(ReuseDecision, RunDifferenceNamesTheFirstPartThatDiffers) {
  RunIdentity source{"f95d79d94ab94df0", "GPU-526a38a2", "580.159.04", "6"};
  EXPECT_EQ(RunDifference(source, source), "");
  RunIdentity other = source;
  other.method_version = "7";
  EXPECT_EQ(RunDifference(source, other), "the source run's method version is '6', this run's '7'");
  other.settings_fingerprint = "0000000000000000";
  EXPECT_EQ(RunDifference(source, other),
            "the source run's settings fingerprint is 'f95d79d94ab94df0', this run's "
            "'0000000000000000'");
  other.driver_version = "590.1";
  EXPECT_TRUE(Contains(RunDifference(source, other), "driver is '580.159.04', this run's '590.1'"));
  other.gpu_uuid = "GPU-84ba34e4";
  EXPECT_EQ(RunDifference(source, other),
            "the source run's GPU (gpu_uuid) is 'GPU-526a38a2', this run's 'GPU-84ba34e4'");
  RunIdentity unrecorded = source;
  unrecorded.gpu_uuid = "";
  EXPECT_TRUE(Contains(RunDifference(unrecorded, source), "gpu_uuid) is not recorded"));
}

// The committed run through the reader into the decision, as the loop will use them.
TEST(ReuseDecision, TheCommittedRunDecidesEachOfItsRows) {
  Result<ReuseSource> loaded = Load(kData + "good_run.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  const ReuseSource& source = loaded.value();
  const double now = source.date_unix + 3600;
  auto decide = [&](const std::string& name, int repetition, uint64_t signature) {
    return DecideReuse(&source, RunDifference(source.identity, source.identity), name, repetition,
                       signature, "", ReuseRules{}, now);
  };
  // Held, 67.6% busy (a short copy): reused, its own measured_at.
  ReuseDecision copy = decide("BM_Copy/1048576/manual_time", 0, 0xa1b2c3d4e5f6ULL);
  EXPECT_EQ(Name(copy), "reused") << copy.why;
  EXPECT_EQ(copy.reused_runs, 1);
  EXPECT_EQ(copy.measured_at, 1796589535.0);
  EXPECT_DOUBLE_EQ(copy.row->real_time_seconds, 6339.879331223466e-9);
  // Its second repetition had been reused twice: a third time.
  EXPECT_EQ(decide("BM_Copy/1048576/manual_time", 1, 0xa1b2c3d4e5f6ULL).reused_runs, 3);
  // Unheld and 44% busy: the GPU waited for the host.
  EXPECT_EQ(Name(decide("BM_SyncLoop/1048576/manual_time", 0, 0x0123456789abULL)), "host_bound");
  // Unheld but 99.6% busy: the host's share is below the cut-off.
  EXPECT_EQ(Name(decide("BM_Sum/400/manual_time", 0, 0xbeefULL)), "reused");
  EXPECT_EQ(Name(decide("BM_Sum/400/manual_time", 0, 0xbeeeULL)), "changed");
  EXPECT_EQ(Name(decide("BM_Broken/manual_time", 0, 1)), "new");
  EXPECT_EQ(Name(decide("BM_NotThere/manual_time", 0, 1)), "new");
}

// The parent's decision on the child's signature: reused only on the instance's first row, only
// where this process's own check reuses it, and never without a line from the child.
TEST(ReuseFromChild, ReusesTheFirstRowOnAMatchingSignatureOnly) {
  ReuseState reuse;
  reuse.on = true;
  reuse.source = OneRowSource();
  const ChildSignature child{kSignature, 0.25};
  const std::string name = "BM_Copy/manual_time";
  std::optional<CallReuse> decided = ReuseFromChild(reuse, name, &child, kNow);
  ASSERT_TRUE(decided.has_value());
  EXPECT_TRUE(decided->reused());
  EXPECT_EQ(decided->signature, kSignature);
  ASSERT_TRUE(decided->from_child.has_value());
  EXPECT_EQ(decided->from_child->wall_seconds, 0.25);
  EXPECT_EQ(decided->decision->reused_runs, 1);

  EXPECT_FALSE(ReuseFromChild(reuse, name, nullptr, kNow));  // the child reused nothing of it
  const ChildSignature other{kSignature + 1, 0.25};
  EXPECT_FALSE(ReuseFromChild(reuse, name, &other, kNow));  // changed: the call runs and signs
  ReuseState later = reuse;
  later.rows_published[name] = 1;  // a second repetition runs its own set-up
  EXPECT_FALSE(ReuseFromChild(later, name, &child, kNow));
  ReuseState off = reuse;
  off.on = false;
  EXPECT_FALSE(ReuseFromChild(off, name, &child, kNow));
  ReuseState differs = reuse;
  differs.run_difference = "the source run's driver is '570.1', this run's '580.2'";
  EXPECT_FALSE(ReuseFromChild(differs, name, &child, kNow));
}

// Work the profiling child signed otherwise differs between two processes of one run: it is
// unsigned, with both signatures in the reason; the same signature changes nothing.
TEST(SignCall, AChildSignatureThatDiffersLeavesTheCallUnsigned) {
  ReuseState reuse;
  reuse.on = true;
  reuse.source = OneRowSource();
  WorkRecord work;
  work.watched = true;
  work.items = {"kernel k code=00 grid=1,1,1 block=32,1,1 smem=0 args=00"};
  const std::string name = "BM_Copy/manual_time";
  const CallReuse alone = SignCall(reuse, work, true, name, kNow);
  ASSERT_TRUE(alone.signature.has_value());
  EXPECT_EQ(alone.unsigned_why, "");
  const CallReuse alike = SignCall(reuse, work, true, name, kNow, *alone.signature);
  EXPECT_EQ(alike.unsigned_why, "");
  EXPECT_EQ(alike.signature, alone.signature);
  const CallReuse differs = SignCall(reuse, work, true, name, kNow, *alone.signature + 1);
  EXPECT_EQ(differs.signature, alone.signature);  // still written: it tells runs apart
  EXPECT_TRUE(Contains(differs.unsigned_why, "differs from process to process"))
      << differs.unsigned_why;
  EXPECT_TRUE(Contains(differs.unsigned_why, SignatureHex(*alone.signature + 1)))
      << differs.unsigned_why;
  ASSERT_TRUE(differs.decision.has_value());
  EXPECT_EQ(Name(*differs.decision), "unsigned");
}

}  // namespace
}  // namespace gpubench::detail
