// Files that Google Benchmark did not finish writing. A run killed by a CI timeout (or still
// running) leaves its --benchmark_out file cut off mid-write: GB writes the context and
// `"benchmarks": [` first, then each row as its benchmark finishes, and `]` and `}` only at the
// end, so such a file is a prefix of a valid document. This finds where its complete rows end
// and what closes the document after them; loader.cpp decides, with the reference parser,
// whether a file that fails to parse is such a prefix.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tools/load/model.hpp"

namespace gpubench::tools::cut_off {

/// Where the structure of a file stands at its end, from one pass over its bytes. Meaningful
/// only for text that is a prefix of valid JSON (the reference parser decides that).
struct Scan {
  /// Objects of the top-level "benchmarks" array(s) that are complete before the end.
  std::size_t complete_rows = 0;
  /// Bytes to keep: up to the end of the last complete row or of the last closed "benchmarks"
  /// array; 0 when there is neither.
  std::size_t keep = 0;
  /// What closes the document after `keep` bytes: "]" and "}" after a row, "}" after the array.
  std::string closers;
  /// Bytes that complete the token the text ends in (the rest of a string, number, literal or
  /// non-finite word), so that the parser can tell whether that token stands where a token may
  /// stand; empty when the text ends between tokens.
  std::string completion;
  /// Where the text ends, for messages: e.g. "inside the \"context\" object".
  const char* where = "";
};

/// Scans `text` (the bytes of a file, before any quoting of non-finite words).
Scan ScanCutOff(std::string_view text);

/// The message for a file cut off before its first complete row (the loader then fails with
/// it): says so, where the file ends and what a complete file looks like.
std::string CutBeforeAnyRowMessage(const std::string& source_name, std::size_t bytes,
                                   const Scan& scan);

}  // namespace gpubench::tools::cut_off

namespace gpubench::tools {

/// One sentence for every tool: "FILE was cut off mid-write (the run was killed, or is still
/// running): R complete benchmark row(s) of B benchmark(s) were recovered from its N bytes;
/// benchmarks after the cut are treated as missing". Each tool adds what that means for it.
std::string DescribeCutOff(const CutOffFile& cut);

}  // namespace gpubench::tools
