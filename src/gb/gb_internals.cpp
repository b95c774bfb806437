#include "gb/gb_internals.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <vector>

#include "common/environment.hpp"

namespace gpubench::detail {
namespace {

// ArgsCnt() is protected before GB 1.9 and public after; a pointer to member formed inside a
// derived class reads it on any benchmark object in both.
struct ArgsCountReader : GbBenchmark {
  static int Read(const GbBenchmark& benchmark) {
    return (benchmark.*(&ArgsCountReader::ArgsCnt))();
  }
};

// GB 1.9 takes ownership through std::unique_ptr, earlier versions through a raw pointer.
template <class B>
auto RegisterOwnedImpl(B* benchmark, int)
    -> decltype(benchmark::internal::RegisterBenchmarkInternal(std::unique_ptr<B>(benchmark))) {
  return benchmark::internal::RegisterBenchmarkInternal(std::unique_ptr<B>(benchmark));
}
template <class B>
auto RegisterOwnedImpl(B* benchmark, long)
    -> decltype(benchmark::internal::RegisterBenchmarkInternal(benchmark)) {
  return benchmark::internal::RegisterBenchmarkInternal(benchmark);
}

// GB applies a benchmark's own ->MinTime() in place of --benchmark_min_time, and keeps it in a
// private member (double min_time_, 0 when unset) in every version from 1.7 to main, with no
// getter. C++ does not check access for names in an explicit instantiation, so the
// instantiation below hands out a pointer to that member; a GB that renamed the member would
// fail to compile here rather than be misread.
struct MinTimeMember {
  using type = double GbBenchmark::*;
  friend type Pointer(MinTimeMember);
};
template <class Tag, typename Tag::type kMember>
struct ExposeMember {
  friend typename Tag::type Pointer(Tag) { return kMember; }
};
template struct ExposeMember<MinTimeMember, &GbBenchmark::min_time_>;

// The same for the family's count (->Iterations(n), 0 when unset) and its name (after ->Name()).
struct IterationsMember {
  using type = benchmark::IterationCount GbBenchmark::*;
  friend type Pointer(IterationsMember);
};
template struct ExposeMember<IterationsMember, &GbBenchmark::iterations_>;
struct NameMember {
  using type = std::string GbBenchmark::*;
  friend type Pointer(NameMember);
};
template struct ExposeMember<NameMember, &GbBenchmark::name_>;

// And the rest of what GB builds an instance's name from (BenchmarkInstance's constructor, the
// same from GB 1.7 to 1.9.5): the arguments' names, min_warmup_time, the repetitions, the time
// type and the thread counts.
#define GPUBENCH_EXPOSE_GB_MEMBER(Tag, Type, member) \
  struct Tag {                                       \
    using type = Type GbBenchmark::*;                \
    friend type Pointer(Tag);                        \
  };                                                 \
  template struct ExposeMember<Tag, &GbBenchmark::member>;
GPUBENCH_EXPOSE_GB_MEMBER(ArgNamesMember, std::vector<std::string>, arg_names_)
GPUBENCH_EXPOSE_GB_MEMBER(MinWarmupTimeMember, double, min_warmup_time_)
GPUBENCH_EXPOSE_GB_MEMBER(RepetitionsMember, int, repetitions_)
GPUBENCH_EXPOSE_GB_MEMBER(ProcessTimeMember, bool, measure_process_cpu_time_)
GPUBENCH_EXPOSE_GB_MEMBER(RealTimeMember, bool, use_real_time_)
GPUBENCH_EXPOSE_GB_MEMBER(ManualTimeMember, bool, use_manual_time_)
GPUBENCH_EXPOSE_GB_MEMBER(ThreadCountsMember, std::vector<int>, thread_counts_)
#undef GPUBENCH_EXPOSE_GB_MEMBER

std::string Seconds(const char* part, double seconds) {
  char text[64];
  std::snprintf(text, sizeof(text), "%s:%0.3f", part, seconds);
  return text;
}

}  // namespace

int ArgsCount(const GbBenchmark& benchmark) { return ArgsCountReader::Read(benchmark); }

double OwnMinTimeSeconds(const GbBenchmark& benchmark) {
  return benchmark.*Pointer(MinTimeMember());
}

benchmark::IterationCount OwnIterations(const GbBenchmark& benchmark) {
  return benchmark.*Pointer(IterationsMember());
}

const std::string& FamilyName(const GbBenchmark& benchmark) {
  return benchmark.*Pointer(NameMember());
}

GbBenchmark* RegisterOwned(GbBenchmark* benchmark) { return RegisterOwnedImpl(benchmark, 0); }

std::string CountNamePart(benchmark::IterationCount count) {
  return "iterations:" + std::to_string(count);
}

void RestoreCountedNames(std::vector<GbRun>* runs, const std::string& count_part,
                         const std::function<bool(const std::string& function_name)>& counted) {
  for (auto& run : *runs) {
    if (run.run_name.iterations == count_part && counted(run.run_name.function_name)) {
      run.run_name.iterations.clear();
    }
  }
}

namespace {

// The end of a bracket expression of a POSIX extended regular expression that opens at `open`
// ('['): a ']' right after "[" or "[^" is a member, "[:alpha:]", "[.x.]" and "[=x=]" nest, and a
// backslash is an ordinary member (GB compiles the filter as POSIX extended). The filter's size
// when it never closes.
size_t BracketEnd(const std::string& filter, size_t open) {
  size_t at = open + 1;
  if (at < filter.size() && filter[at] == '^') ++at;
  if (at < filter.size() && filter[at] == ']') ++at;
  while (at < filter.size() && filter[at] != ']') {
    if (filter[at] == '[' && at + 1 < filter.size() &&
        std::strchr(":.=", filter[at + 1]) != nullptr) {
      const char kind[3] = {filter[at + 1], ']', '\0'};
      const size_t close = filter.find(kind, at + 2);
      at = close == std::string::npos ? filter.size() : close + 2;
    } else {
      ++at;
    }
  }
  return at < filter.size() ? at + 1 : filter.size();
}

}  // namespace

std::string WidenFilter(const std::string& filter, const std::string& count_part) {
  const std::string count_before = count_part.empty() ? "" : "(" + count_part + "/)?";
  const std::string before_end =
      (count_part.empty() ? "" : "(/" + count_part + ")?") + "(/manual_time)?";
  std::string out;
  for (size_t i = 0; i < filter.size();) {
    const char c = filter[i];
    if (c == '\\') {  // an escaped character, "\$" among them, stays as it is
      const size_t length = std::min<size_t>(2, filter.size() - i);
      out.append(filter, i, length);
      i += length;
      continue;
    }
    if (c == '[') {  // a '$' in a bracket expression is a member, not the end
      const size_t end = BracketEnd(filter, i);
      out.append(filter, i, end - i);
      i = end;
      continue;
    }
    if (c == '$') {
      out += before_end;
      out += c;
      ++i;
      continue;
    }
    bool widened = false;
    for (const char* follows : {"manual_time", "process_time", "repeats:"}) {
      const size_t length = std::char_traits<char>::length(follows);
      if (!count_before.empty() && filter.compare(i, length, follows) == 0) {
        out += count_before;
        out.append(filter, i, length);
        i += length;
        widened = true;
        break;
      }
    }
    if (!widened) out += filter[i++];
  }
  return out;
}

GbRun InstanceRun(const GbBenchmark& family, const benchmark::State& state) {
  GbRun run;
  benchmark::BenchmarkName& name = run.run_name;
  name.function_name = FamilyName(family);
  const std::vector<std::string>& arg_names = family.*Pointer(ArgNamesMember());
  for (int i = 0; i < ArgsCount(family); ++i) {
    if (!name.args.empty()) name.args += '/';
    if (static_cast<size_t>(i) < arg_names.size() && !arg_names[i].empty()) {
      name.args += arg_names[i] + ":";
    }
    name.args += std::to_string(state.range(static_cast<size_t>(i)));
  }
  if (OwnMinTimeSeconds(family) != 0)
    name.min_time = Seconds("min_time", OwnMinTimeSeconds(family));
  if (const double warmup = family.*Pointer(MinWarmupTimeMember()); warmup != 0) {
    name.min_warmup_time = Seconds("min_warmup_time", warmup);
  }
  if (OwnIterations(family) != 0) name.iterations = CountNamePart(OwnIterations(family));
  const int repetitions = family.*Pointer(RepetitionsMember());
  if (repetitions != 0) name.repetitions = "repeats:" + std::to_string(repetitions);
  if (family.*Pointer(ProcessTimeMember())) name.time_type = "process_time";
  const char* clock = family.*Pointer(ManualTimeMember()) ? "manual_time"
                      : family.*Pointer(RealTimeMember()) ? "real_time"
                                                          : nullptr;
  if (clock != nullptr) name.time_type += (name.time_type.empty() ? "" : "/") + std::string(clock);
  if (!(family.*Pointer(ThreadCountsMember())).empty()) {
    name.threads = "threads:" + std::to_string(state.threads());
  }
  // GB leaves these to its runner (some uninitialised): one repetition's row, nothing timed.
  run.family_index = -1;
  run.per_family_instance_index = -1;
  run.run_type = GbRun::RT_Iteration;
  run.repetition_index = 0;
  run.repetitions = repetitions > 0 ? repetitions : 1;
  run.threads = state.threads();
  run.iterations = 0;
  run.time_unit = family.GetTimeUnit();
  return run;
}

std::string GbJsonRows(const std::vector<GbRun>& runs) {
  std::ostringstream out, errors;
  benchmark::JSONReporter json;
  json.SetOutputStream(&out);
  json.SetErrorStream(&errors);
  json.ReportRuns(runs);
  return out.str();
}

void TagRunArgs(GbRun* run, const std::string& tag) {
  std::string& args = run->run_name.args;
  if (!tag.empty()) args += (args.empty() ? "" : "/") + tag;
}

bool IsManualTime(const GbRun& run) {
  return run.run_name.time_type.find("manual_time") != std::string::npos;
}

bool IsProcessTime(const GbRun& run) {
  return run.run_name.time_type.find("process_time") != std::string::npos;
}

std::string InstanceNameOfRun(const GbRun& run) {
  std::string name = run.run_name.function_name;
  std::istringstream args(run.run_name.args);
  for (std::string arg; std::getline(args, arg, '/');) {
    if (arg.empty()) continue;
    const size_t colon = arg.find(':');  // a named argument, "n:1024"
    name += "/" + (colon == std::string::npos ? arg : arg.substr(colon + 1));
  }
  return name;
}

std::string InstanceOfRowName(const std::string& name) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    const size_t slash = name.find('/', start);
    parts.push_back(name.substr(start, slash == std::string::npos ? slash : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  const auto starts = [](const std::string& text, const char* prefix) {
    return text.rfind(prefix, 0) == 0;
  };
  while (parts.size() > 1) {
    const std::string& last = parts.back();
    if (last == "manual_time" || last == "real_time" || last == "process_time" ||
        starts(last, "min_time:") || starts(last, "min_warmup_time:") ||
        starts(last, "iterations:") || starts(last, "repeats:") || starts(last, "threads:")) {
      parts.pop_back();
    } else {
      break;
    }
  }
  // The first part is the function's (or fixture's) name, which may hold "::".
  std::string instance = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string part = parts[i];
    const size_t colon = part.find(':');
    const bool named = colon != std::string::npos && colon > 0 && colon + 1 < part.size() &&
                       part[colon + 1] != ':' &&
                       std::all_of(part.begin(), part.begin() + colon, [](char c) {
                         return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                       });
    if (named) part = part.substr(colon + 1);
    instance += "/" + part;
  }
  return instance;
}

bool IsAggregate(const GbRun& run) { return run.run_type == GbRun::RT_Aggregate; }

bool IsIteration(const GbRun& run) { return run.run_type == GbRun::RT_Iteration; }

bool IsMean(const GbRun& run) { return run.aggregate_name == "mean"; }

int64_t RepetitionIndex(const GbRun& run) { return run.repetition_index; }

Status SplitGbJson(const std::string& text, std::string* context_object, std::string* rows) {
  const std::string marker = "\"benchmarks\": [";
  const size_t at = text.find(marker);
  const size_t open = text.find('{');
  const size_t close = text.rfind(']');
  if (at == std::string::npos || open == std::string::npos || close == std::string::npos ||
      close < at) {
    return Status::InvalidInput("not a JSON file of Google Benchmark's (no \"benchmarks\" array)");
  }
  std::string head = text.substr(open + 1, at - open - 1);
  head.erase(head.find_last_not_of(" \t\r\n,") + 1);
  *context_object = "{" + head + "}";
  *rows = text.substr(at + marker.size(), close - at - marker.size());
  rows->erase(0, rows->find_first_not_of(" \t\r\n"));
  rows->erase(rows->find_last_not_of(" \t\r\n") + 1);
  return Status::Ok();
}

std::string JoinGbJson(const std::string& context, const std::string& rows) {
  return "{\n  \"context\": " + context + ",\n  \"benchmarks\": [\n    " + rows + kGbJsonEnd;
}

std::string GbFlagValue(int argc, char** argv, const std::string& name) {
  std::string value;
  const std::string prefix = "--benchmark_" + name + "=";
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) value = argv[i] + prefix.size();
  }
  if (value.empty()) {
    std::string env = "BENCHMARK_" + name;
    for (auto& c : env) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* from_env = EnvironmentValue(env.c_str())) value = from_env;
  }
  return value;
}

std::optional<double> MinTimeSeconds(const std::string& flag_value) {
  if (flag_value.empty()) return kDefaultMinTimeSeconds;
  std::string number = flag_value;
  if (number.back() == 'x') return std::nullopt;  // an iteration count: every call is reported
  if (number.back() == 's') number.pop_back();
  if (number.empty()) return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || !std::isfinite(seconds) || seconds <= 0) {
    return std::nullopt;
  }
  return seconds;
}

#if GPUBENCH_GB_GLOBAL_COUNTS
}  // namespace gpubench::detail

// GB's flags (src/commandlineflags.h, not installed): exported globals since GB 1.8, where
// --benchmark_min_time became a string that also takes "<n>x".
namespace benchmark {
extern std::string FLAGS_benchmark_min_time;
extern bool FLAGS_benchmark_list_tests;
}  // namespace benchmark

namespace gpubench::detail {

bool GbTakesGlobalCounts() { return true; }

bool SetGlobalCount(benchmark::IterationCount count) {
  static const std::string before = benchmark::FLAGS_benchmark_min_time;
  benchmark::FLAGS_benchmark_min_time = count > 0 ? std::to_string(count) + "x" : before;
  return true;
}

std::optional<std::vector<std::string>> ListInstanceNames() {
  std::ostringstream listed, errors;
  benchmark::ConsoleReporter quiet;
  quiet.SetOutputStream(&listed);
  quiet.SetErrorStream(&errors);
  const bool was_listing = benchmark::FLAGS_benchmark_list_tests;
  benchmark::FLAGS_benchmark_list_tests = true;
  benchmark::RunSpecifiedBenchmarks(&quiet);
  benchmark::FLAGS_benchmark_list_tests = was_listing;
  std::vector<std::string> names;
  std::string line;
  std::istringstream lines(listed.str());
  while (std::getline(lines, line)) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}
#else
bool GbTakesGlobalCounts() { return false; }
bool SetGlobalCount(benchmark::IterationCount) { return false; }
std::optional<std::vector<std::string>> ListInstanceNames() { return std::nullopt; }
#endif

}  // namespace gpubench::detail
