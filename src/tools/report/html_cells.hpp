// Number formats and table cells that several sections of gpubench-report's page use.
#pragma once

#include <string>
#include <string_view>

#include "tools/load/model.hpp"

namespace gpubench::tools::internal {

/// "1.23 TB/s", "456 GB/s", ...; "-" when not finite.
std::string FormatBandwidth(double bytes_per_second);
/// "1.5 GiB", "12 KiB", "100 B"; "-" when not finite.
std::string FormatBytes(double bytes);
/// A time in ns in a fitting unit ("1.23 us"); "-" when not finite.
std::string FormatTime(double ns);
/// `percent` with `format`; "-" when not finite.
std::string FormatPercentValue(double percent, const char* format = "%.2f%%");
/// The median of `metric` over the record's repetitions; NaN when it has none.
double MedianOf(const BenchmarkRecord& record, std::string_view metric);

/// A sortable cell: data-v is what the table's script sorts by.
std::string Cell(const std::string& text, double sort_value, const std::string& css = "num");
/// A cell of escaped text, with the CSS class `css` when not empty.
std::string TextCell(const std::string& text, const std::string& css = "");

}  // namespace gpubench::tools::internal
