// The HTML report's stylesheet and script. They live in src/tools/report/web/ as real files (so
// that editors, linters and `node --check` see them as CSS and JavaScript); the build embeds them
// (cmake/EmbedText.cmake).
#pragma once

namespace gpubench::tools {

extern const char kReportStyle[];   ///< web/report.css, after a newline
extern const char kReportScript[];  ///< web/report.js, after a newline
/// web/series.js (a history's series and change points), after a newline: before kReportScript,
/// which calls it
extern const char kReportSeriesScript[];

}  // namespace gpubench::tools
