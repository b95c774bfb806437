#include "config/settings_parse.hpp"
#include "common/environment.hpp"
#include "common/text_files.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <optional>
#include <sstream>

namespace gpubench::detail {
namespace {

constexpr const char kFlagPrefix[] = "--gpubench_";
constexpr const char kEnvPrefix[] = "GPUBENCH_";

std::string FlagName(const SettingRow& row) { return kFlagPrefix + std::string(row.name); }

std::string EnvName(const SettingRow& row) {
  std::string name(row.name);
  std::transform(name.begin(), name.end(), name.begin(), ::toupper);
  return kEnvPrefix + name;
}

std::string ValidFlagList() {
  std::string out;
  for (const auto* rows : {&SettingRows(), &ActionRows()}) {
    for (const SettingRow& row : *rows)
      out += "  " + FlagName(row) + "=" + std::string(row.values) + "\n";
  }
  return out;
}

std::string ValidEnvList() {
  std::string out;
  for (const SettingRow& row : SettingRows()) {
    out += "  " + EnvName(row) + "=" + std::string(row.values) + "\n";
  }
  return out;
}

// The text given for each row (flags override environment variables), by row name.
using RawValues = std::map<std::string_view, std::string>;

// Reads gpubench's flags (the syntax only: CLI11) into `raw`; rows' values are checked later.
std::string ReadFlags(const std::vector<std::string>& args, RawValues* raw) {
  CLI::App app("gpubench");
  app.set_help_flag();
  std::vector<std::pair<const SettingRow*, std::string>> texts;
  texts.reserve(SettingRows().size() + ActionRows().size());
  std::vector<std::pair<const SettingRow*, CLI::Option*>> options;
  for (const auto* rows : {&SettingRows(), &ActionRows()}) {
    for (const SettingRow& row : *rows) {
      texts.emplace_back(&row, std::string());
      CLI::Option* option = app.add_option(FlagName(row), texts.back().second);
      if (row.values.front() == '[') option->expected(0, 1);  // an optional value
      options.emplace_back(&row, option);
    }
  }
  std::vector<const char*> argv = {"gpubench"};
  for (const auto& arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& error) {
    return error.what();
  }
  for (size_t i = 0; i < options.size(); ++i) {
    if (options[i].second->count() > 0) (*raw)[options[i].first->name] = texts[i].second;
  }
  return "";
}

// GPUBENCH_* variables into `raw`.
std::string ReadEnvironment(const Environment& env, RawValues* raw) {
  for (const auto& [key, value] : env) {
    if (!StartsWith(key, kEnvPrefix)) continue;
    const auto& rows = SettingRows();
    auto row = std::find_if(rows.begin(), rows.end(),
                            [&](const SettingRow& candidate) { return EnvName(candidate) == key; });
    if (row == rows.end()) {
      return "unknown environment variable " + key + "; gpubench reads:\n" + ValidEnvList();
    }
    (*raw)[row->name] = value;
  }
  return "";
}

}  // namespace

Environment ProcessEnvironment() { return EnvironmentVariables(); }

ParseResult ParseCommandLine(const std::vector<std::string>& args, const Environment& env) {
  ParseResult result;
  RawValues from_env, from_flags;
  if (std::string error = ReadEnvironment(env, &from_env); !error.empty()) {
    result.error = error;
    return result;
  }
  std::vector<std::string> ours;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0 && StartsWith(args[i], kFlagPrefix)) {
      ours.push_back(args[i]);
    } else {
      result.command_line.remaining_args.push_back(args[i]);
    }
  }
  if (std::string error = ReadFlags(ours, &from_flags); !error.empty()) {
    result.error = error + "\nvalid gpubench flags:\n" + ValidFlagList();
    return result;
  }

  CommandLine& line = result.command_line;
  line.settings.metrics = DefaultMetrics();
  for (const auto* rows : {&SettingRows(), &ActionRows()}) {
    for (const SettingRow& row : *rows) {
      const bool flag = from_flags.count(row.name) != 0;
      if (!flag && from_env.count(row.name) == 0) continue;
      const std::string& text = flag ? from_flags[row.name] : from_env[row.name];
      const std::string error = row.parse(text, &line);
      if (error.empty()) continue;
      result.error = flag ? FlagName(row) + "=" + text + ": " + error +
                                "\nvalid gpubench flags:\n" + ValidFlagList()
                          : "bad environment variable " + EnvName(row) + "=" + text + ": " + error +
                                "\nvalid variables:\n" + ValidEnvList();
      return result;
    }
  }
  // --gpubench_device and --gpubench_devices both choose devices: a flag wins over a variable,
  // two of the same kind contradict each other.
  const bool device_flag = from_flags.count("device") != 0;
  const bool devices_flag = from_flags.count("devices") != 0;
  const bool device_given = device_flag || from_env.count("device") != 0;
  const bool devices_given = devices_flag || from_env.count("devices") != 0;
  if (device_given && devices_given) {
    if (device_flag == devices_flag) {
      result.error =
          "give either --gpubench_device=N (one device) or --gpubench_devices=all|N[,N...] (the "
          "suite once per device), not both (GPUBENCH_DEVICE and GPUBENCH_DEVICES alike)\n";
      return result;
    }
    if (device_flag) {
      line.devices.clear();
      line.all_devices = false;
    }
  }
  // Reuse matches rows by their signature: without one nothing could ever match.
  if (line.settings.signature == Signature::kOff && !line.settings.reuse_path.empty()) {
    result.error =
        "--gpubench_reuse needs the work signature: leave out --gpubench_signature=off "
        "(GPUBENCH_SIGNATURE=off alike), or leave out --gpubench_reuse to measure every row\n";
    return result;
  }
  result.ok = true;
  return result;
}

std::string FlagHelp() {
  std::ostringstream out;
  out << "\ngpubench flags (environment variable GPUBENCH_<NAME> works too; flags win):\n";
  for (const auto* rows : {&SettingRows(), &ActionRows()}) {
    for (const SettingRow& row : *rows) {
      out << "  " << FlagName(row) << "=" << row.values;
      if (!row.default_value.empty()) out << " (default " << row.default_value << ")";
      out << "\n      " << row.meaning << "\n";
    }
  }
  return out.str();
}

}  // namespace gpubench::detail
