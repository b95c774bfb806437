// The HTML report's stylesheet and script. They live in src/compare/web/ as real files (so that
// editors, linters and `node --check` see them as CSS and JavaScript); the build embeds them
// (cmake/EmbedText.cmake).
#pragma once

namespace gpubench::tools {

extern const char kReportStyle[];   ///< web/report.css, after a newline
extern const char kReportScript[];  ///< web/report.js, after a newline

}  // namespace gpubench::tools
