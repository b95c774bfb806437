// The bytes of one input file for the loader: a private, writable copy for RapidJSON's in-situ
// parse, or the bytes as they are for the reference parser.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.hpp"

namespace gpubench::tools {

/// Zero bytes that follow the text that RapidJSON or simdjson parses (simdjson reads up to 64
/// bytes past the end).
inline constexpr std::size_t kTextPadding = 64;

/// An input file. Regular files are mapped, pre-faulted because page faults are costly on some
/// VMs; other files (pipes, process substitution) are read.
class InputFile {
 public:
  explicit InputFile(const std::string& path) : path_(path) {}

  /// Opens the file; reads it now unless it is a regular file that can be mapped.
  detail::Status Open();
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  std::size_t size() const { return size_; }

  /// A private copy of the bytes that may be changed, followed by kTextPadding zero bytes: for a
  /// regular file, a copy-on-write mapping whose pages are all copied up front (MAP_POPULATE:
  /// page faults are unusually expensive on some VMs) within a zero-filled region one page
  /// longer, so that zeros follow even when the size is a multiple of the page size. (Reading
  /// into memory advised for transparent huge pages was tried: more system time.)
  detail::Result<char*> WritableCopy();
  /// Gives the writable copy back (before the reference parser reads the bytes).
  void DropWritableCopy();

  /// The bytes as they are in the file, followed by kTextPadding zero bytes, read-only: for a
  /// regular file, a pre-faulted read-only mapping of the page cache (nothing is copied) within a
  /// zero-filled region one page longer; otherwise the writable copy.
  detail::Result<const char*> PaddedBytes();
  /// Gives the padded mapping back.
  void DropPaddedBytes();

  /// The bytes as they are in the file.
  detail::Result<std::string_view> Bytes();

 private:
  detail::Status ReadAll();
  /// A mapping of the file within a zero-filled region at least kTextPadding bytes longer;
  /// nullptr when mmap fails.
  char* MapPadded(int protection, std::size_t& mapping_size);

  struct Descriptor {
    int fd = -1;
    ~Descriptor();
  };

  const std::string& path_;
  Descriptor fd_;
  std::size_t size_ = 0;
  bool mappable_ = false;  ///< a regular file, not empty
  bool read_ = false;      ///< buffer_ holds the bytes
  std::string buffer_;
  void* original_ = nullptr;
  void* copy_mapping_ = nullptr;
  std::size_t copy_mapping_size_ = 0;
  char* copy_start_ = nullptr;
  void* padded_mapping_ = nullptr;
  std::size_t padded_mapping_size_ = 0;
  std::string copy_;
};

}  // namespace gpubench::tools
