#include "tools/load/input_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tools/load/gb_rows.hpp"

namespace gpubench::tools {

using detail::Result;
using detail::Status;
using rows::kExpectedInput;

InputFile::~InputFile() {
  DropPaddedBytes();
  DropWritableCopy();
  if (original_) ::munmap(original_, size_);
}

InputFile::Descriptor::~Descriptor() {
  if (fd >= 0) ::close(fd);
}

Status InputFile::Open() {
  fd_.fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_.fd < 0) {
    const int saved = errno;
    return Status::InvalidInput("cannot open " + path_ + ": " + std::strerror(saved));
  }
  struct stat info {};
  if (::fstat(fd_.fd, &info) != 0) {
    const int saved = errno;
    return Status::InvalidInput("cannot read " + path_ + ": " + std::strerror(saved));
  }
  if (S_ISDIR(info.st_mode)) {
    return Status::InvalidInput(path_ + " is a directory; " + kExpectedInput);
  }
  if (S_ISREG(info.st_mode) && info.st_size > 0) {
    size_ = static_cast<std::size_t>(info.st_size);
    mappable_ = true;
    return Status::Ok();
  }
  return ReadAll();
}

Result<char*> InputFile::WritableCopy() {
  if (mappable_ && !copy_mapping_) {
    copy_mapping_ = copy_start_ = MapPadded(PROT_READ | PROT_WRITE, copy_mapping_size_);
  }
  if (copy_mapping_) return copy_start_;
  Result<std::string_view> bytes_or = Bytes();
  if (!bytes_or.ok()) return bytes_or.status();
  const std::string_view bytes = bytes_or.value();
  copy_.reserve(bytes.size() + kTextPadding);
  copy_.assign(bytes);
  copy_.append(kTextPadding, '\0');
  return copy_.data();
}

char* InputFile::MapPadded(int protection, std::size_t& mapping_size) {
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t total = (size_ + kTextPadding + page - 1) / page * page;
  void* region = ::mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return nullptr;
  if (::mmap(region, size_, protection, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, fd_.fd, 0) ==
      MAP_FAILED) {
    ::munmap(region, total);
    return nullptr;
  }
  mapping_size = total;
  return static_cast<char*>(region);
}

Result<const char*> InputFile::PaddedBytes() {
  if (mappable_ && !padded_mapping_) {
    padded_mapping_ = MapPadded(PROT_READ, padded_mapping_size_);
  }
  if (padded_mapping_) return static_cast<const char*>(padded_mapping_);
  Result<char*> copy = WritableCopy();
  if (!copy.ok()) return copy.status();
  return static_cast<const char*>(copy.value());
}

void InputFile::DropPaddedBytes() {
  if (padded_mapping_) ::munmap(padded_mapping_, padded_mapping_size_);
  padded_mapping_ = nullptr;
}

void InputFile::DropWritableCopy() {
  if (copy_mapping_) ::munmap(copy_mapping_, copy_mapping_size_);
  copy_mapping_ = nullptr;
  std::string().swap(copy_);
}

Result<std::string_view> InputFile::Bytes() {
  if (mappable_ && !original_ && !read_) {
    void* mapping = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd_.fd, 0);
    if (mapping != MAP_FAILED) {
      original_ = mapping;
    } else {
      GPUBENCH_RETURN_IF_ERROR(ReadAll());
    }
  }
  return original_ ? std::string_view(static_cast<const char*>(original_), size_)
                   : std::string_view(buffer_);
}

Status InputFile::ReadAll() {
  char chunk[1 << 16];
  for (;;) {
    const ssize_t got = ::read(fd_.fd, chunk, sizeof chunk);
    if (got == 0) break;
    if (got < 0) {
      if (errno == EINTR) continue;
      const int saved = errno;
      return Status::InvalidInput("cannot read " + path_ + ": " + std::strerror(saved));
    }
    buffer_.append(chunk, static_cast<std::size_t>(got));
  }
  read_ = true;
  size_ = buffer_.size();
  mappable_ = false;
  return Status::Ok();
}

}  // namespace gpubench::tools
