#include "measure/profiling/profiling_pass.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "measure/call/abort_note.hpp"

namespace gpubench::detail {
namespace {

// The file is the parent's (mkstemp, in $TMPDIR or /tmp, which other users can write): it is
// opened once, never through a link, and only while it is this user's (file_calls.hpp). Each line
// goes out unbuffered as it is known; one cut off by the child's end is dropped by BeginTiming.
constexpr const char* kTemporaryFileRemedy = "set TMPDIR to a folder of this user's own";

Status AppendLine(int fd, const std::string& path, const nlohmann::json& line) {
  const std::string text = line.dump() + '\n';
  for (size_t written = 0; written < text.size();) {
    const ssize_t count = ::write(fd, text.data() + written, text.size() - written);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      return Status::Error("cannot write the profiling pass's file '" + path +
                           "': " + std::strerror(errno));
    }
    written += static_cast<size_t>(count);
  }
  return Status::Ok();
}

// The whole file behind `fd` into *text.
Status ReadAll(int fd, const std::string& path, std::string* text) {
  char buffer[65536];
  while (true) {
    const ssize_t count = ::read(fd, buffer, sizeof(buffer));
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) {
      return Status::Error("cannot read the profiling child's file '" + path +
                           "': " + std::strerror(errno));
    }
    if (count == 0) return Status::Ok();
    text->append(buffer, static_cast<size_t>(count));
  }
}

nlohmann::json EntryLine(const std::string& instance, const ProfilingPass::Entry& entry) {
  const ProfileOutcome& profile = entry.profile;
  nlohmann::json line = {
      {"instance", instance},         {"profiled", profile.kind == ProfileOutcome::Kind::kProfiled},
      {"counters", profile.counters}, {"passes", profile.passes},
      {"seconds", profile.seconds},   {"wall_seconds", entry.wall_seconds}};
  if (!profile.error.empty()) line["error"] = profile.error;
  if (!profile.note.empty()) line["note"] = profile.note;
  if (profile.ranges_paused) line["ranges_paused"] = true;
  if (entry.signature) line["signature"] = *entry.signature;
  if (entry.sharing.shared) line["shared_with"] = entry.sharing.who;
  if (entry.busy.iterations > 0) {
    nlohmann::json calls = nlohmann::json::array();
    for (const HostCall& call : entry.busy.calls) {
      calls.push_back({call.name, call.count, call.seconds});
    }
    line["busy"] = {{"iterations", entry.busy.iterations},
                    {"seconds", entry.busy.busy_seconds},
                    {"work_items", entry.busy.work_items},
                    {"other_thread_items", entry.busy.other_thread_items},
                    {"host_seconds", entry.busy.host_seconds},
                    {"calls", calls}};
  }
  if (!entry.busy_error.empty()) line["busy_error"] = entry.busy_error;
  return line;
}

ProfilingPass::Entry ReadEntry(const nlohmann::json& line) {
  ProfilingPass::Entry entry;
  ProfileOutcome& profile = entry.profile;
  profile.kind = line.at("profiled").get<bool>() ? ProfileOutcome::Kind::kProfiled
                                                 : ProfileOutcome::Kind::kFailed;
  // A value the child could not write as a number (NaN or infinite: JSON null) leaves that
  // counter out of the row, not the instance's other counters.
  for (const auto& [name, value] : line.at("counters").items()) {
    if (value.is_number()) profile.counters[name] = value.get<double>();
  }
  profile.passes = line.at("passes").get<int>();
  profile.seconds = line.at("seconds").get<double>();
  profile.error = line.value("error", "");
  profile.note = line.value("note", "");
  profile.ranges_paused = line.value("ranges_paused", false);
  entry.wall_seconds = line.value("wall_seconds", 0.0);
  if (line.contains("signature")) entry.signature = line.at("signature").get<uint64_t>();
  if (line.contains("shared_with")) {
    entry.sharing.known = true;
    entry.sharing.shared = true;
    entry.sharing.who = line.at("shared_with").get<std::string>();
  }
  if (line.contains("busy")) {
    const nlohmann::json& busy = line.at("busy");
    entry.busy.iterations = busy.at("iterations").get<int>();
    entry.busy.busy_seconds = busy.at("seconds").get<double>();
    entry.busy.host_seconds = busy.value("host_seconds", 0.0);
    entry.busy.work_items = busy.value("work_items", 0.0);
    entry.busy.other_thread_items = busy.value("other_thread_items", 0.0);
    for (const nlohmann::json& call : busy.at("calls")) {
      entry.busy.calls.push_back(
          {call.at(0).get<std::string>(), call.at(1).get<double>(), call.at(2).get<double>()});
    }
  }
  entry.busy_error = line.value("busy_error", "");
  return entry;
}

}  // namespace

Status ProfilingPass::BeginProfiling(const std::string& path, const Header& header) {
  files_.writes_sessions = true;
  OpenRule rule;
  rule.access = O_WRONLY | O_APPEND;
  rule.create = true;  // the parent made it; a file removed since is made again, with O_EXCL
  rule.remedy = kTemporaryFileRemedy;
  Result<OpenedFile> opened = OpenRegularFile(SystemFileCalls(), path, rule);
  if (!opened.ok()) {
    return Status::Error("cannot write the profiling pass's file: " + opened.status().message());
  }
  output_path_ = path;
  output_ = UniqueFd(opened.value().fd);
  SetAbortLineFile(output_.get());  // a benchmark that aborts here is named to the parent
  return AppendLine(output_.get(), output_path_,
                    {{"profiler", header.profiler_status}, {"units", header.metric_units}});
}

Status ProfilingPass::BeginTiming(const std::string& path, Header* header) {
  OpenRule rule;
  rule.access = O_RDONLY;
  rule.remedy = kTemporaryFileRemedy;
  Result<OpenedFile> opened = OpenRegularFile(SystemFileCalls(), path, rule);
  if (!opened.ok()) {
    return Status::Error("cannot read the profiling child's file: " + opened.status().message());
  }
  const UniqueFd file(opened.value().fd);
  std::string whole;
  GPUBENCH_RETURN_IF_ERROR(ReadAll(file.get(), path, &whole));
  std::istringstream in(whole);
  std::string text;
  if (!std::getline(in, text)) {
    return Status::Error("the profiling child wrote nothing (" + path + ")");
  }
  try {
    const nlohmann::json first = nlohmann::json::parse(text);
    header->profiler_status = first.at("profiler").get<std::string>();
    header->metric_units = first.at("units").get<std::map<std::string, std::string>>();
    // A child without a profiler (unavailable, off) profiled nothing: metrics are off here too.
    if (header->profiler_status.rfind("on", 0) != 0) return Status::Ok();
    files_.read_child = true;
    while (std::getline(in, text)) {
      // A line cut off by the child's end is the one session it did not finish.
      const nlohmann::json line = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (line.is_discarded()) break;
      ReadLine(line);
    }
  } catch (const std::exception& error) {
    return Status::Error(std::string("the profiling child's file does not read: ") + error.what());
  }
  return Status::Ok();
}

// One instance's line: a line that does not read costs that instance its metrics, not the run.
void ProfilingPass::ReadLine(const nlohmann::json& line) {
  if (line.is_object() && line.contains("aborted") && line.at("aborted").is_string()) {
    aborted_in_child_.insert(line.at("aborted").get<std::string>());
    return;
  }
  if (line.is_object() && line.contains("reused") && line.at("reused").is_string()) {
    // A line that does not read leaves the instance to be signed here.
    if (line.contains("signature") && line.at("signature").is_number_unsigned()) {
      reused_[line.at("reused").get<std::string>()] = {line.at("signature").get<uint64_t>(),
                                                       line.value("wall_seconds", 0.0)};
    }
    return;
  }
  if (!line.is_object() || !line.contains("instance") || !line.at("instance").is_string()) return;
  const std::string instance = line.at("instance").get<std::string>();
  try {
    entries_[instance] = ReadEntry(line);
  } catch (const std::exception& error) {
    Entry failed;
    failed.profile.kind = ProfileOutcome::Kind::kFailed;
    failed.profile.error =
        std::string("the profiling child's line for this instance does not read: ") + error.what();
    entries_[instance] = std::move(failed);
  }
}

std::string ProfilingPass::AbortedLine(const std::string& instance) {
  return nlohmann::json{{"aborted", instance}}.dump() + '\n';
}

const ProfilingPass::Entry* ProfilingPass::Find(const std::string& instance) const {
  const auto found = entries_.find(instance);
  return found == entries_.end() ? nullptr : &found->second;
}

Status ProfilingPass::StoreReused(const std::string& instance, const ChildSignature& reused) {
  reused_[instance] = reused;
  if (output_.get() < 0) return Status::Ok();
  return AppendLine(output_.get(), output_path_,
                    {{"reused", instance},
                     {"signature", reused.signature},
                     {"wall_seconds", reused.wall_seconds}});
}

const ChildSignature* ProfilingPass::ReusedInChild(const std::string& instance) const {
  const auto found = reused_.find(instance);
  return found == reused_.end() ? nullptr : &found->second;
}

Status ProfilingPass::Store(const std::string& instance, Entry entry) {
  Status written = output_.get() < 0
                       ? Status::Ok()
                       : AppendLine(output_.get(), output_path_, EntryLine(instance, entry));
  entries_[instance] = std::move(entry);
  return written;
}

void ProfilingPass::TakeCounters(const std::string& instance, CallResult* call) {
  ProfileOutcome& outcome = call->profile;
  const Entry* entry = Find(instance);
  if (entry == nullptr) {
    // The child ended the call before its session (the timed call meets the same error), died
    // before it, or the instance did not exist there.
    outcome = ProfileOutcome();
    outcome.kind = ProfileOutcome::Kind::kFailed;
    outcome.error =
        "the profiling child did not profile this instance (its call ended with an error there, "
        "the child ended before it, or the instance was registered only in this process)";
    return;
  }
  outcome = entry->profile;
  if (charged_.insert(instance).second) call->wall_profiling_seconds = entry->wall_seconds;
  call->busy = entry->busy;
  call->busy_error = entry->busy_error;
  if (outcome.kind == ProfileOutcome::Kind::kProfiled) {
    outcome.kind = ProfileOutcome::Kind::kFromPass;
  }
  if (entry->sharing.shared) {
    call->sharing.known = true;
    call->sharing.shared = true;
    call->sharing.Add(entry->sharing.who + " (while its metrics were profiled)");
  }
}

}  // namespace gpubench::detail
