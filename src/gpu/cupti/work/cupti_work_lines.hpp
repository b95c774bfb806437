// The work signature's lines of copies and sets, and what the work recorder
// (cupti_work_recorder.cpp) shares with them: device addresses as allocations, hashes in hex.
#pragma once

#include <cupti.h>

#include <cstdint>
#include <string>

#include "gpu/plan/work_signature.hpp"

namespace gpubench::detail {

/// Device-accessible memory through the driver: an address in an allocation gives its range.
class DriverAllocations final : public AllocationLookup {
 public:
  bool Find(uint64_t address, uint64_t* base, uint64_t* size) override;
};

/// 16 lower-case hex digits.
std::string HexWord(uint64_t value);

/// The line of a copy or set call the recorder watches (CUPTI's driver callback at its entry):
/// direction and size, with a hash of the host bytes a copy from the host reads, or a set's
/// value and size. `why` gets the reason when the call cannot be signed (a 3-D or batched copy,
/// whose host bytes are not read).
std::string CopyOrSetLine(CUpti_CallbackId id, const CUpti_CallbackData* data, std::string* why);

}  // namespace gpubench::detail
