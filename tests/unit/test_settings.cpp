#include <gtest/gtest.h>

#include "config/metric_groups.hpp"
#include "config/settings_parse.hpp"
#include "frontend/setup/context.hpp"
#include "schema/context_keys.hpp"
#include "support/guide_table.hpp"

namespace gpubench::detail {
namespace {

ParseResult Parse(std::vector<std::string> args, Environment env = {}) {
  args.insert(args.begin(), "bench");
  return ParseCommandLine(args, env);
}

TEST(Settings, DefaultsWithoutFlagsOrEnvironment) {
  ParseResult result = Parse({});
  ASSERT_TRUE(result.ok) << result.error;
  const Settings& settings = result.command_line.settings;
  EXPECT_EQ(settings.timer, Timer::kEvents);
  EXPECT_EQ(settings.cache, CachePolicy::kFlush);
  EXPECT_EQ(settings.metrics, DefaultMetrics());
  EXPECT_EQ(settings.profile_iterations, 3);
  EXPECT_EQ(settings.profile_runs, ProfileRuns::kReported);
  EXPECT_EQ(settings.device, 0);
  EXPECT_FALSE(result.command_line.list_metrics);
}

TEST(Settings, FlagsSetEverySetting) {
  ParseResult result = Parse({"--gpubench_timer=cupti", "--gpubench_cache=keep",
                              "--gpubench_clock_control=none", "--gpubench_profile_iterations=0",
                              "--gpubench_device=2", "--gpubench_profile_out=/tmp/p.jsonl",
                              "--gpubench_profile_runs=all", "--gpubench_exclusive=fail"});
  ASSERT_TRUE(result.ok) << result.error;
  const Settings& settings = result.command_line.settings;
  EXPECT_EQ(settings.profile_runs, ProfileRuns::kAll);
  EXPECT_EQ(settings.exclusive, Exclusive::kFail);
  EXPECT_EQ(settings.timer, Timer::kCupti);
  EXPECT_EQ(settings.cache, CachePolicy::kKeep);
  EXPECT_EQ(settings.profile_iterations, 0);
  EXPECT_EQ(settings.device, 2);
  EXPECT_EQ(result.command_line.profile_out, "/tmp/p.jsonl");
}

TEST(Settings, GoogleBenchmarkFlagsArePassedOnInOrder) {
  ParseResult result = Parse({"--benchmark_filter=Copy", "--gpubench_cache=keep",
                              "--benchmark_out=x.json", "--benchmark_out_format=json"});
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.command_line.remaining_args,
            (std::vector<std::string>{"bench", "--benchmark_filter=Copy", "--benchmark_out=x.json",
                                      "--benchmark_out_format=json"}));
}

TEST(Settings, MetricsAreAddedToTheDefaultsWithoutDuplicates) {
  ParseResult result =
      Parse({"--gpubench_metrics=lts__t_sector_hit_rate.pct, dram__bytes_read.sum"});
  ASSERT_TRUE(result.ok) << result.error;
  std::vector<std::string> expected = DefaultMetrics();
  expected.push_back("lts__t_sector_hit_rate.pct");
  EXPECT_EQ(result.command_line.settings.metrics, expected);
}

TEST(Settings, AGroupAddsItsMetricsToTheDefaults) {
  ParseResult result = Parse({"--gpubench_metrics=+l2,lts__t_sector_hit_rate.pct,+flops"});
  ASSERT_TRUE(result.ok) << result.error;
  std::vector<std::string> expected = DefaultMetrics();
  for (const char* group : {"l2", "flops"}) {
    for (const auto& metric : FindMetricGroup(group)->metrics) expected.push_back(metric);
  }
  EXPECT_EQ(result.command_line.settings.metrics, expected);  // the hit rate once
  EXPECT_EQ(ActiveGroupNames(result.command_line.settings),
            (std::vector<std::string>{"flops", "l2"}));
  ParseResult env = Parse({}, {{"GPUBENCH_METRICS", "+flops"}});
  ASSERT_TRUE(env.ok) << env.error;
  EXPECT_EQ(ActiveGroupNames(env.command_line.settings), (std::vector<std::string>{"flops"}));
}

TEST(Settings, UnknownGroupIsRejectedWithTheGroups) {
  for (const char* flag : {"--gpubench_metrics=+flop", "--gpubench_metrics=+"}) {
    ParseResult result = Parse({flag});
    ASSERT_FALSE(result.ok) << flag;
    EXPECT_NE(result.error.find("is not a metric group; the groups are +flops, +l2"),
              std::string::npos)
        << result.error;
  }
}

TEST(Settings, EnvironmentIsReadAndFlagsWin) {
  ParseResult from_env = Parse({}, {{"GPUBENCH_CACHE", "keep"}, {"GPUBENCH_DEVICE", "1"}});
  ASSERT_TRUE(from_env.ok) << from_env.error;
  EXPECT_EQ(from_env.command_line.settings.cache, CachePolicy::kKeep);
  EXPECT_EQ(from_env.command_line.settings.device, 1);

  ParseResult flag_wins = Parse({"--gpubench_cache=flush"}, {{"GPUBENCH_CACHE", "keep"}});
  ASSERT_TRUE(flag_wins.ok) << flag_wins.error;
  EXPECT_EQ(flag_wins.command_line.settings.cache, CachePolicy::kFlush);
}

TEST(Settings, OtherEnvironmentVariablesAreIgnored) {
  ParseResult result = Parse({}, {{"BENCHMARK_FORMAT", "json"}, {"PATH", "/usr/bin"}});
  EXPECT_TRUE(result.ok) << result.error;
}

TEST(Settings, UnknownFlagIsRejectedWithTheValidFlags) {
  ParseResult result = Parse({"--gpubench_cahce=keep"});
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("--gpubench_cahce"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("--gpubench_cache=flush|keep"), std::string::npos) << result.error;
}

TEST(Settings, BadValuesAreRejectedWithTheValidOnes) {
  ParseResult cache = Parse({"--gpubench_cache=cold"});
  ASSERT_FALSE(cache.ok);
  EXPECT_NE(cache.error.find("cold"), std::string::npos) << cache.error;
  EXPECT_NE(cache.error.find("flush"), std::string::npos) << cache.error;

  ParseResult clock = Parse({"--gpubench_clock_control=base"});
  ASSERT_FALSE(clock.ok);
  EXPECT_NE(clock.error.find("none"), std::string::npos) << clock.error;

  EXPECT_FALSE(Parse({"--gpubench_profile_iterations=-1"}).ok);
  EXPECT_FALSE(Parse({"--gpubench_profile_iterations=three"}).ok);
  EXPECT_FALSE(Parse({"--gpubench_device=x"}).ok);
  ParseResult runs = Parse({"--gpubench_profile_runs=trials"});
  ASSERT_FALSE(runs.ok);
  EXPECT_NE(runs.error.find("trials"), std::string::npos) << runs.error;
  EXPECT_NE(runs.error.find("--gpubench_profile_runs=reported|all"), std::string::npos)
      << runs.error;
  EXPECT_FALSE(Parse({"--gpubench_timer"}).ok);  // a value is required
  ParseResult exclusive = Parse({"--gpubench_exclusive=always"});
  ASSERT_FALSE(exclusive.ok);
  EXPECT_NE(exclusive.error.find("--gpubench_exclusive=warn|wait|fail"), std::string::npos)
      << exclusive.error;
}

TEST(Settings, MalformedMetricNameIsRejected) {
  ParseResult result = Parse({"--gpubench_metrics=dram bytes"});
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("not a metric name"), std::string::npos) << result.error;
}

TEST(Settings, BadEnvironmentValueNamesTheVariable) {
  ParseResult result = Parse({}, {{"GPUBENCH_TIMER", "wallclock"}});
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("GPUBENCH_TIMER=wallclock"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("events|cupti"), std::string::npos) << result.error;
}

TEST(Settings, ExclusiveDefaultsToWarnAndReadsTheEnvironment) {
  EXPECT_EQ(Parse({}).command_line.settings.exclusive, Exclusive::kWarn);
  ParseResult wait = Parse({}, {{"GPUBENCH_EXCLUSIVE", "wait"}});
  ASSERT_TRUE(wait.ok) << wait.error;
  EXPECT_EQ(wait.command_line.settings.exclusive, Exclusive::kWait);
}

TEST(Settings, UnknownEnvironmentVariableIsRejected) {
  ParseResult result = Parse({}, {{"GPUBENCH_CACHEPOLICY", "keep"}});
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("GPUBENCH_CACHEPOLICY"), std::string::npos) << result.error;
  EXPECT_NE(result.error.find("GPUBENCH_CACHE="), std::string::npos) << result.error;
}

TEST(Settings, ActionsAreFlagsOnly) {
  EXPECT_FALSE(Parse({}, {{"GPUBENCH_LIST_METRICS", "dram"}}).ok);
  ParseResult plain = Parse({"--gpubench_list_metrics"});
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_TRUE(plain.command_line.list_metrics);
  EXPECT_EQ(plain.command_line.list_metrics_filter, "");
  ParseResult filtered = Parse({"--gpubench_list_metrics=dram__", "--gpubench_chip=GH100"});
  ASSERT_TRUE(filtered.ok) << filtered.error;
  EXPECT_EQ(filtered.command_line.list_metrics_filter, "dram__");
  EXPECT_EQ(filtered.command_line.chip, "GH100");
}

TEST(Settings, HelpListsEveryFlag) {
  const std::string help = FlagHelp();
  for (const char* flag : {"timer", "cache", "clock_control", "metrics", "profile_iterations",
                           "profile_runs", "device", "profile_out", "list_metrics", "chip"}) {
    EXPECT_NE(help.find(std::string("--gpubench_") + flag), std::string::npos) << flag;
  }
}

// The table's default text (shown by --help) means the same as Settings' own defaults.
TEST(SettingsTable, DefaultTextsParseToTheDefaults) {
  CommandLine defaults;
  defaults.settings.metrics = DefaultMetrics();
  for (const SettingRow& row : SettingRows()) {
    if (row.default_value.empty()) continue;
    CommandLine line = defaults;
    EXPECT_EQ(row.parse(row.default_value, &line), "") << row.name;
    EXPECT_EQ(row.print(line), row.print(defaults)) << row.name;
    EXPECT_EQ(row.print(defaults), row.default_value) << row.name;
  }
}

// Every accepted value of a choice prints as itself: the context and banner show what was typed.
TEST(SettingsTable, ChoicesPrintAsTyped) {
  for (const SettingRow& row : SettingRows()) {
    const std::string values(row.values);
    // Choices are literal lower-case words ("flush|keep"); "all|N[,N...]" mixes in a pattern.
    if (values.find('|') == std::string::npos || values.find_first_of("[]N") != std::string::npos) {
      continue;
    }
    size_t start = 0;
    while (start <= values.size()) {
      const size_t bar = std::min(values.find('|', start), values.size());
      const std::string value = values.substr(start, bar - start);
      CommandLine line;
      EXPECT_EQ(row.parse(value, &line), "") << row.name << "=" << value;
      EXPECT_EQ(row.print(line), value) << row.name;
      start = bar + 1;
    }
    CommandLine line;
    EXPECT_NE(row.parse("bogus", &line), "") << row.name;
  }
}

// --help, the environment and the context block are made from the table: each row appears.
TEST(SettingsTable, EveryRowReachesHelpAndItsContextKey) {
  const std::string help = FlagHelp();
  DeviceFacts facts;
  Settings settings;
  settings.metrics = DefaultMetrics();
  std::map<std::string, std::string> context;
  for (const auto& [key, value] : BuildContext(settings, facts, "off: test")) context[key] = value;
  for (const auto* rows : {&SettingRows(), &ActionRows()}) {
    for (const SettingRow& row : *rows) {
      EXPECT_NE(help.find("--gpubench_" + std::string(row.name) + "="), std::string::npos)
          << row.name;
      EXPECT_NE(help.find(std::string(row.meaning)), std::string::npos) << row.name;
      if (row.in_context) {
        EXPECT_EQ(context.count(context_key::kGpubenchPrefix + std::string(row.name)), 1u);
      }
      if (row.fingerprint != nullptr) {
        for (const auto& [key, value] : row.fingerprint(settings)) {
          EXPECT_EQ(context[key], value) << key;
        }
      }
    }
  }
  for (const SettingRow& row : SettingRows()) {
    std::string variable = "GPUBENCH_" + std::string(row.name);
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // The default, else the first word of the accepted values when it is a literal ("all").
    const std::string values(row.values);
    const std::string first = values.substr(0, values.find('|'));
    const bool literal = first.find_first_not_of("abcdefghijklmnopqrstuvwxyz") == std::string::npos;
    const std::string value = !row.default_value.empty()  ? std::string(row.default_value)
                              : literal && !first.empty() ? first
                                                          : "x";
    EXPECT_TRUE(Parse({}, {{variable, value}}).ok) << variable;
  }
}

TEST(SettingsTable, AFlagWinsOverItsEnvironmentVariable) {
  ParseResult result = Parse({"--gpubench_metrics=a.sum"}, {{"GPUBENCH_METRICS", "b.sum"}});
  ASSERT_TRUE(result.ok) << result.error;
  std::vector<std::string> expected = DefaultMetrics();
  expected.push_back("a.sum");
  EXPECT_EQ(result.command_line.settings.metrics, expected);
}

// the user guide's settings table lists the rows in the table's order, with its defaults, and says
// "no" in the fingerprinted column exactly for the rows that are not fingerprinted.
TEST(SettingsTable, UserGuideTableMatchesIt) {
  const auto rows = testing::GuideTable("| setting | values | default | meaning | fingerprinted |");
  ASSERT_EQ(rows.size(), SettingRows().size()) << "docs/user_guide.md's settings table";
  for (size_t i = 0; i < rows.size(); ++i) {
    const SettingRow& row = SettingRows()[i];
    ASSERT_GE(rows[i].size(), 5u);
    EXPECT_EQ(rows[i][0], row.name);
    EXPECT_EQ(rows[i][2], row.default_value.empty() ? "—" : std::string(row.default_value))
        << row.name;
    EXPECT_EQ(rows[i][4] == "no", row.fingerprint == nullptr) << row.name;
  }
}

// --gpubench_reuse and its limits: off by default, every value form, clear refusals, and never
// in the fingerprint (a run that reuses compares equal with a full run).
TEST(Settings, ReuseIsOffByDefaultAndTakesAPathAndItsLimits) {
  ParseResult defaults = Parse({});
  ASSERT_TRUE(defaults.ok) << defaults.error;
  EXPECT_EQ(defaults.command_line.settings.reuse_path, "");
  EXPECT_EQ(defaults.command_line.settings.reuse_max_runs, 5);
  EXPECT_EQ(defaults.command_line.settings.reuse_max_age_seconds, 7 * 86400.0);

  ParseResult result = Parse(
      {"--gpubench_reuse=history/", "--gpubench_reuse_max_runs=0", "--gpubench_reuse_max_age=36h"});
  ASSERT_TRUE(result.ok) << result.error;
  EXPECT_EQ(result.command_line.settings.reuse_path, "history/");
  EXPECT_EQ(result.command_line.settings.reuse_max_runs, 0);
  EXPECT_EQ(result.command_line.settings.reuse_max_age_seconds, 36 * 3600.0);

  ParseResult from_env =
      Parse({}, {{"GPUBENCH_REUSE", "prev.json"}, {"GPUBENCH_REUSE_MAX_AGE", "90m"}});
  ASSERT_TRUE(from_env.ok) << from_env.error;
  EXPECT_EQ(from_env.command_line.settings.reuse_path, "prev.json");
  EXPECT_EQ(from_env.command_line.settings.reuse_max_age_seconds, 5400.0);
}

// --gpubench_signature: on by default, off on request, not fingerprinted (it changes no measured
// number), and refused with --gpubench_reuse, which matches rows by their signature.
TEST(Settings, SignatureIsOnByDefaultAndReuseNeedsIt) {
  ParseResult defaults = Parse({});
  ASSERT_TRUE(defaults.ok) << defaults.error;
  EXPECT_EQ(defaults.command_line.settings.signature, Signature::kOn);

  ParseResult off = Parse({"--gpubench_signature=off"});
  ASSERT_TRUE(off.ok) << off.error;
  EXPECT_EQ(off.command_line.settings.signature, Signature::kOff);
  EXPECT_EQ(SettingsFingerprint(off.command_line.settings),
            SettingsFingerprint(defaults.command_line.settings));

  ParseResult bad = Parse({"--gpubench_signature=yes"});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("'yes' is not one of on|off"), std::string::npos) << bad.error;

  for (const ParseResult& both :
       {Parse({"--gpubench_signature=off", "--gpubench_reuse=history/"}),
        Parse({}, {{"GPUBENCH_SIGNATURE", "off"}, {"GPUBENCH_REUSE", "prev.json"}})}) {
    EXPECT_FALSE(both.ok);
    EXPECT_NE(both.error.find("--gpubench_reuse needs the work signature"), std::string::npos)
        << both.error;
  }
}

const SettingRow& RowNamed(const std::string& name) {
  for (const SettingRow& row : SettingRows()) {
    if (row.name == name) return row;
  }
  ADD_FAILURE() << "no setting " << name;
  return SettingRows().front();
}

TEST(Settings, ReuseMaxAgeReadsEachUnitAndPrintsInTheLargestWholeOne) {
  const SettingRow& row = RowNamed("reuse_max_age");
  const struct {
    const char* text;
    double seconds;
    const char* printed;
  } cases[] = {
      {"7d", 7 * 86400.0, "7d"}, {"168h", 7 * 86400.0, "7d"}, {"36h", 129600, "36h"},
      {"90m", 5400, "90m"},      {"1.5h", 5400, "90m"},       {"600", 600, "10m"},
      {"45s", 45, "45s"},        {"0.5", 0.5, "0.5s"},        {"3650d", 3650 * 86400.0, "3650d"}};
  for (const auto& item : cases) {
    CommandLine line;
    EXPECT_EQ(row.parse(item.text, &line), "") << item.text;
    EXPECT_EQ(line.settings.reuse_max_age_seconds, item.seconds) << item.text;
    EXPECT_EQ(row.print(line), item.printed) << item.text;
  }
}

TEST(Settings, BadReuseValuesAreRefusedWithWhatWouldBeRight) {
  const struct {
    const char* flag;
    const char* message;
  } cases[] = {
      {"--gpubench_reuse_max_runs=-1", "'-1' is not a whole number from 0 to 1000000"},
      {"--gpubench_reuse_max_runs=five", "'five' is not a whole number from 0 to 1000000"},
      {"--gpubench_reuse_max_age=7x",
       "'7x' is not a duration: give a number above 0 followed by "
       "s, m, h or d (e.g. 7d, 36h, 90m; a bare number is seconds)"},
      {"--gpubench_reuse_max_age=0d", "'0d' is not a duration"},
      {"--gpubench_reuse_max_age=-3d", "'-3d' is not a duration"},
      {"--gpubench_reuse_max_age=d", "'d' is not a duration"},
      {"--gpubench_reuse_max_age=0x10", "'0x10' is not a duration"},
      {"--gpubench_reuse_max_age=3651d", "at most 3650 days"},
  };
  for (const auto& bad : cases) {
    ParseResult result = Parse({bad.flag});
    EXPECT_FALSE(result.ok) << bad.flag;
    EXPECT_NE(result.error.find(std::string(bad.flag) + ": "), std::string::npos) << result.error;
    EXPECT_NE(result.error.find(bad.message), std::string::npos) << result.error;
  }
}

// An empty path: the flag's syntax (CLI11) refuses it, the variable's value the row's parser.
TEST(Settings, AnEmptyReusePathIsRefused) {
  ParseResult flag = Parse({"--gpubench_reuse="});
  EXPECT_FALSE(flag.ok);
  EXPECT_NE(flag.error.find("--gpubench_reuse"), std::string::npos) << flag.error;
  ParseResult variable = Parse({}, {{"GPUBENCH_REUSE", ""}});
  EXPECT_FALSE(variable.ok);
  EXPECT_NE(variable.error.find("bad environment variable GPUBENCH_REUSE=: an empty path: give a "
                                "previous run's JSON file or a folder of runs"),
            std::string::npos)
      << variable.error;
}

TEST(Settings, ReuseDoesNotEnterTheFingerprint) {
  Settings full;
  full.metrics = DefaultMetrics();
  Settings reusing = full;
  reusing.reuse_path = "history/";
  reusing.reuse_max_runs = 0;
  reusing.reuse_max_age_seconds = 60;
  EXPECT_EQ(SettingsFingerprint(reusing), SettingsFingerprint(full));
  EXPECT_EQ(FingerprintedSettings(reusing), FingerprintedSettings(full));
  // And the fingerprint still changes with a setting that is in it: the comparison can fail.
  Settings other = full;
  other.cache = CachePolicy::kKeep;
  EXPECT_NE(SettingsFingerprint(other), SettingsFingerprint(full));
}

}  // namespace
}  // namespace gpubench::detail
