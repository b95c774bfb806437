// CSV fields as RFC 4180 writes them and pandas.read_csv reads them without options: the tables
// of gpubench-export --to csv and gpubench-compare --format csv.
#pragma once

#include <string>
#include <string_view>

namespace gpubench::tools {

/// Appends `text` as one field: in double quotes (each quote doubled) when it holds a comma, a
/// quote, CR or LF, or starts or ends with a space; as it is otherwise.
void AppendCsvField(std::string& out, std::string_view text);

/// Appends a number: the shortest text that reads back as the same double; NaN, inf and -inf as
/// pandas reads them.
void AppendCsvNumber(std::string& out, double value);

/// Appends "true" or "false" (pandas reads a column of them as bool).
inline void AppendCsvBool(std::string& out, bool value) { out += value ? "true" : "false"; }

}  // namespace gpubench::tools
