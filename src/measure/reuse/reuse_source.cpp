#include "measure/reuse/reuse_source.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string_view>
#include <tuple>

#include "gb/gb_internals.hpp"

namespace gpubench::detail {
namespace {

using nlohmann::json;

// What a reader of a refused or broken source can do about it.
constexpr char kWhatIsRight[] =
    "give the JSON file a gpubench binary wrote with --benchmark_out=FILE "
    "(--benchmark_out_format=json, GB's default), or a folder of such files";

// GB's date is the context's first key; this much of a file holds it.
constexpr size_t kHeadBytes = 8192;

// GB's own fields of a row: every other number is a counter.
const std::set<std::string_view>& GbFields() {
  static const std::set<std::string_view> fields = {"name",
                                                    "run_name",
                                                    "run_type",
                                                    "repetitions",
                                                    "repetition_index",
                                                    "threads",
                                                    "iterations",
                                                    "real_time",
                                                    "cpu_time",
                                                    "time_unit",
                                                    "family_index",
                                                    "per_family_instance_index",
                                                    "aggregate_name",
                                                    "aggregate_unit",
                                                    "error_occurred",
                                                    "error_message",
                                                    "label",
                                                    "skipped",
                                                    "skip_message",
                                                    "big_o",
                                                    "rms",
                                                    "complexity",
                                                    "complexity_n"};
  return fields;
}

std::string Errno(int negative_errno) { return std::strerror(-negative_errno); }

std::string ParentOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// "" when `folder` may hold a source: a folder (not a link to one) of this user or root.
// Another user's folder could hold anything that user put there.
std::string FolderRefusal(FileCalls& calls, const std::string& folder) {
  struct stat info {};
  if (const int error = calls.Lstat(folder, &info); error < 0) {
    return "cannot use the folder " + folder + " (" + Errno(error) + ")";
  }
  if (S_ISLNK(info.st_mode)) {
    return folder +
           " is a symbolic link, which gpubench does not follow (someone else may have put it "
           "there); give the folder it points to";
  }
  if (!S_ISDIR(info.st_mode)) return folder + " is not a folder";
  const uid_t me = calls.EffectiveUid();
  if (info.st_uid != me && info.st_uid != 0) {
    return folder + " belongs to uid " + std::to_string(info.st_uid) + ", not to this user (uid " +
           std::to_string(me) +
           "): another user could have put its runs there; copy the run into a folder of yours";
  }
  return "";
}

// Up to `limit` bytes of the regular file at `path`, opened as the lock file is.
Result<std::string> ReadSafely(FileCalls& calls, const std::string& path, size_t limit) {
  OpenRule rule;
  rule.access = O_RDONLY;
  rule.what = "a gpubench run's JSON file";
  rule.remedy = "give a file of yours (copy the run into a folder of yours)";
  Result<OpenedFile> opened = OpenRegularFile(calls, path, rule);
  if (!opened.ok()) return opened.status();
  const int fd = opened.value().fd;
  std::string text;
  char buffer[65536];
  while (text.size() < limit) {
    const ssize_t got = ::read(fd, buffer, std::min(sizeof(buffer), limit - text.size()));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const std::string reason = std::strerror(errno);
      calls.Close(fd);
      return Status::Error("cannot read " + path + " (" + reason + ")");
    }
    if (got == 0) break;
    text.append(buffer, static_cast<size_t>(got));
  }
  calls.Close(fd);
  return text;
}

// The date GB wrote at the head of a run, for ordering a folder's files without parsing them
// whole; 0 when none is found.
double HeadDate(const std::string& head) {
  const size_t key = head.find("\"date\"");
  if (key == std::string::npos) return 0;
  const size_t open = head.find('"', head.find(':', key));
  if (open == std::string::npos) return 0;
  const size_t close = head.find('"', open + 1);
  if (close == std::string::npos) return 0;
  double seconds = 0;
  return ParseGbDate(head.substr(open + 1, close - open - 1), &seconds) ? seconds : 0;
}

std::string StringField(const json& object, const char* key) {
  const auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

double SecondsPerUnit(const std::string& unit) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1;
  return 0;
}

// One row of GB's "benchmarks"; false for an aggregate (mean, median, ...) or a row without a
// name.
bool ReadRow(const json& item, SourceRow* row) {
  if (!item.is_object()) return false;
  const std::string kind = StringField(item, "run_type");
  if (!kind.empty() && kind != "iteration") return false;
  row->name = StringField(item, "name");
  if (row->name.empty()) return false;
  const auto index = item.find("repetition_index");
  if (index != item.end() && index->is_number_integer()) row->repetition = index->get<int>();
  const auto iterations = item.find("iterations");
  if (iterations != item.end() && iterations->is_number()) {
    row->iterations = iterations->get<int64_t>();
  }
  const double unit = SecondsPerUnit(StringField(item, "time_unit"));
  const auto real_time = item.find("real_time");
  if (real_time != item.end() && real_time->is_number() && unit > 0) {
    row->real_time_seconds = real_time->get<double>() * unit;
  } else {
    row->error = true;  // nothing to carry over
  }
  const auto error = item.find("error_occurred");
  if (error != item.end() && error->is_boolean() && error->get<bool>()) row->error = true;
  // GB 1.8 and later: a row skipped with a message has error_occurred false and a message.
  if (!StringField(item, "error_message").empty()) row->error = true;
  for (const auto& [key, value] : item.items()) {
    if (!value.is_number() || GbFields().count(key) != 0) continue;
    row->counters[key] = value.get<double>();
  }
  return true;
}

// A run's text into a source, or why it is none.
Result<ReuseSource> ParseRun(const std::string& path, const std::string& text) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Status::InvalidInput(path + " is empty (a run that was killed before GB wrote it?); " +
                                kWhatIsRight);
  }
  json run;
  try {
    run = json::parse(text);
  } catch (const json::parse_error& error) {
    // An error at the end of the input: the text was cut off (a run killed mid-write, a copy
    // not finished, a full disk).
    const char first = text[text.find_first_not_of(" \t\r\n")];
    if (error.byte > text.size() && (first == '{' || first == '[')) {
      return Status::InvalidInput(path + " is cut off: its JSON ends early after " +
                                  std::to_string(text.size()) +
                                  " bytes (a run killed while GB wrote it, or a copy not "
                                  "finished); " +
                                  kWhatIsRight);
    }
    return Status::InvalidInput(path + " is not JSON (byte " + std::to_string(error.byte) + ": " +
                                error.what() + "); " + kWhatIsRight);
  }
  const auto context = run.is_object() ? run.find("context") : run.end();
  if (!run.is_object() || context == run.end() || !context->is_object()) {
    return Status::InvalidInput(path + " is not a GB run: it has no \"context\" object; " +
                                kWhatIsRight);
  }
  if (context->find("gpubench_version") == context->end()) {
    return Status::InvalidInput(path +
                                " is not a gpubench run: its context has no gpubench_version "
                                "(written by plain GB or another tool); " +
                                kWhatIsRight);
  }
  ReuseSource source;
  source.path = path;
  source.date = StringField(*context, "date");
  if (!ParseGbDate(source.date, &source.date_unix)) source.date_unix = 0;
  source.commit = StringField(*context, "commit");
  source.identity.settings_fingerprint = StringField(*context, "gpubench_settings_fingerprint");
  source.identity.gpu_uuid = StringField(*context, "gpu_uuid");
  source.identity.driver_version = StringField(*context, "gpu_driver_version");
  if (source.identity.driver_version.empty()) {
    source.identity.driver_version = StringField(*context, "cuda_driver_version");
  }
  source.identity.method_version = StringField(*context, "gpubench_method_version");

  const auto benchmarks = run.find("benchmarks");
  std::set<std::pair<std::string, int>> twice;
  if (benchmarks != run.end() && benchmarks->is_array()) {
    for (const json& item : *benchmarks) {
      SourceRow row;
      if (!ReadRow(item, &row)) continue;
      auto key = std::make_pair(InstanceOfRowName(row.name), row.repetition);
      const std::string written = row.name;
      const auto [where, inserted] = source.rows.emplace(key, std::move(row));
      if (!inserted) {
        where->second.error = true;  // which of the two would be this run's instance?
        twice.insert({written, key.second});
      }
    }
  }
  for (const auto& [name, repetition] : twice) {
    source.notes.push_back(path + ": two rows named " + name + " of repetition " +
                           std::to_string(repetition) + "; neither is reused");
  }
  if (source.rows.empty()) {
    return Status::InvalidInput(path +
                                " has no benchmark rows (a run that ended before its first "
                                "benchmark, or filtered to none); " +
                                kWhatIsRight);
  }
  return source;
}

Result<ReuseSource> LoadFile(const std::string& path, FileCalls& calls) {
  if (std::string refusal = FolderRefusal(calls, ParentOf(path)); !refusal.empty()) {
    return Status::InvalidInput("the reuse source " + path + " is refused: " + refusal);
  }
  Result<std::string> text = ReadSafely(calls, path, SIZE_MAX);
  if (!text.ok()) return Status::InvalidInput(text.status().message());
  return ParseRun(path, text.value());
}

struct Candidate {
  double date = 0;
  std::string name;
};

Result<ReuseSource> LoadFolder(const std::string& folder, FileCalls& calls) {
  if (std::string refusal = FolderRefusal(calls, folder); !refusal.empty()) {
    return Status::InvalidInput("the reuse source " + folder + " is refused: " + refusal);
  }
  std::vector<std::string> names;
  if (DIR* listing = ::opendir(folder.c_str())) {
    while (const dirent* entry = ::readdir(listing)) {
      const std::string name = entry->d_name;
      if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
        names.push_back(name);
      }
    }
    ::closedir(listing);
  } else {
    return Status::InvalidInput("cannot list the reuse folder " + folder + " (" +
                                std::strerror(errno) + ")");
  }
  if (names.empty()) {
    return Status::InvalidInput("the reuse folder " + folder +
                                " holds no *.json run; give a folder where runs are written with "
                                "--benchmark_out=FOLDER/NAME.json, or one run's file");
  }
  const std::string prefix = folder.back() == '/' ? folder : folder + "/";
  std::vector<std::string> passed_over;
  std::vector<Candidate> candidates;
  for (const std::string& name : names) {
    Result<std::string> head = ReadSafely(calls, prefix + name, kHeadBytes);
    if (!head.ok()) {
      passed_over.push_back(head.status().message());
      continue;
    }
    candidates.push_back({HeadDate(head.value()), name});
  }
  // Newest first: by date, then by name (runs of one second, named in order).
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return std::tie(a.date, a.name) > std::tie(b.date, b.name);
  });
  for (const Candidate& candidate : candidates) {
    Result<ReuseSource> source = LoadFile(prefix + candidate.name, calls);
    if (!source.ok()) {
      passed_over.push_back(source.status().message());
      continue;
    }
    std::vector<std::string> notes;
    for (const std::string& why : passed_over) {
      notes.push_back("passed over in the reuse folder " + folder + ": " + why);
    }
    for (std::string& note : source.value().notes) notes.push_back(std::move(note));
    source.value().notes = std::move(notes);
    return source;
  }
  std::string whys;
  for (const std::string& why : passed_over) whys += "\n  " + why;
  return Status::InvalidInput("the reuse folder " + folder +
                              " holds no usable gpubench run:" + whys);
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian; H. Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = (year >= 0 ? year : year - 399) / 400;
  const int64_t year_of_era = year - era * 400;
  const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

// `count` digits at text[*at] into *value.
bool Digits(const std::string& text, size_t* at, int count, int* value) {
  if (*at + count > text.size()) return false;
  *value = 0;
  for (int i = 0; i < count; ++i) {
    const char c = text[*at + i];
    if (c < '0' || c > '9') return false;
    *value = *value * 10 + (c - '0');
  }
  *at += count;
  return true;
}

bool Expect(const std::string& text, size_t* at, char c) {
  if (*at >= text.size() || text[*at] != c) return false;
  ++*at;
  return true;
}

}  // namespace

bool ParseGbDate(const std::string& text, double* unix_seconds) {
  size_t at = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!Digits(text, &at, 4, &year) || !Expect(text, &at, '-') || !Digits(text, &at, 2, &month) ||
      !Expect(text, &at, '-') || !Digits(text, &at, 2, &day) ||
      !(Expect(text, &at, 'T') || Expect(text, &at, ' ')) || !Digits(text, &at, 2, &hour) ||
      !Expect(text, &at, ':') || !Digits(text, &at, 2, &minute) || !Expect(text, &at, ':') ||
      !Digits(text, &at, 2, &second)) {
    return false;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    return false;
  }
  double fraction = 0;
  if (at < text.size() && text[at] == '.') {
    double scale = 0.1;
    ++at;
    const size_t start = at;
    for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10) {
      fraction += (text[at] - '0') * scale;
    }
    if (at == start) return false;
  }
  int offset_seconds = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    const int sign = text[at] == '-' ? -1 : 1;
    ++at;
    int offset_hours = 0, offset_minutes = 0;
    if (!Digits(text, &at, 2, &offset_hours)) return false;
    (void)Expect(text, &at, ':');  // +00:00 and +0000 alike
    if (!Digits(text, &at, 2, &offset_minutes) || offset_hours > 23 || offset_minutes > 59) {
      return false;
    }
    offset_seconds = sign * (offset_hours * 3600 + offset_minutes * 60);
  }
  // Without an offset the time is taken as UTC (GB always writes one).
  if (at != text.size()) return false;
  const int64_t days = DaysFromCivil(year, month, day);
  *unix_seconds =
      static_cast<double>(days * 86400 + hour * 3600 + minute * 60 + second - offset_seconds) +
      fraction;
  return true;
}

const SourceRow* ReuseSource::Find(const std::string& name, int repetition) const {
  const auto found = rows.find({InstanceOfRowName(name), repetition});
  return found == rows.end() ? nullptr : &found->second;
}

std::string ReuseSource::Describe() const {
  std::string out = path + " (" + (date.empty() ? std::string("no date") : date);
  if (!commit.empty()) out += ", commit " + commit;
  return out + ")";
}

Result<ReuseSource> LoadReuseSource(const std::string& path, FileCalls& calls) {
  if (path.empty())
    return Status::InvalidInput("an empty reuse path; " + std::string(kWhatIsRight));
  struct stat info {};
  if (const int error = calls.Lstat(path, &info); error < 0) {
    if (error == -ENOENT) {
      return Status::InvalidInput("the reuse source " + path + " does not exist; " + kWhatIsRight);
    }
    return Status::InvalidInput("cannot use the reuse source " + path + " (" + Errno(error) + ")");
  }
  if (S_ISLNK(info.st_mode)) {
    return Status::InvalidInput("the reuse source " + path +
                                " is a symbolic link, which gpubench does not follow (someone "
                                "else may have put it there); give the file or folder it points "
                                "to");
  }
  if (S_ISDIR(info.st_mode)) {
    std::string folder = path;
    while (folder.size() > 1 && folder.back() == '/') folder.pop_back();
    return LoadFolder(folder, calls);
  }
  return LoadFile(path, calls);
}

}  // namespace gpubench::detail
