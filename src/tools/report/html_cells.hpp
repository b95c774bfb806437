// Number formats and table cells that several sections of gpubench-report's page use.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

/// A counter's code in words, by the vocabulary's unit: "reason" a stop_reason's name, "reasons"
/// the names of a clock_event_reasons bit set joined by '|' ("none" for 0); a value without a name
/// (or of another counter) as its number.
std::string CodeInWords(std::string_view metric, double value);
/// Each distinct code of `metric` over the records' repetitions, in words with how many
/// repetitions had it, in order of first appearance: "precision ×6, repetition ×54"; "" when
/// none has it. Codes are counted, never averaged: GB's mean of 1 and 6 x 9 is 5.5, no reason.
/// A file of aggregates only has no repetitions' codes.
std::string CountedCodes(const std::vector<const BenchmarkRecord*>& records,
                         std::string_view metric);

/// A sortable cell: data-v is what the table's script sorts by.
std::string Cell(const std::string& text, double sort_value, const std::string& css = "num");
/// A cell of escaped text, with the CSS class `css` when not empty.
std::string TextCell(const std::string& text, const std::string& css = "");

}  // namespace gpubench::tools::internal
