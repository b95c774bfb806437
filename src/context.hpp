// The context block: every setting and device fact that gives gpubench's numbers their meaning.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "device_info.hpp"
#include "gpubench/settings.hpp"

namespace gpubench::detail {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

/// Bumped whenever the measurement method changes what a number means (fingerprinted).
inline constexpr int kMethodVersion = 1;

/// The settings that change what a number means, as context keys and values; the fingerprint
/// is a hash of exactly these.
KeyValues FingerprintedSettings(const Settings& settings);

/// 16 hex digits: FNV-1a (64 bit) of the sorted "key=value" lines of FingerprintedSettings.
std::string SettingsFingerprint(const Settings& settings);

/// How the L2 flush is done (for the context), given the device's L2 size.
std::string FlushMethodDescription(const Settings& settings, int64_t flush_bytes);

/// Bytes read by the flush kernel: twice the L2 size (at least 8 MiB).
int64_t FlushBytes(int64_t l2_bytes);

/// Everything gpubench adds to GB's context block, in a fixed order.
/// `profiler_status`: "on: ..." / "off: ..." / "unavailable: ..." (see README).
KeyValues BuildContext(const Settings& settings, const DeviceFacts& facts,
                       const std::string& profiler_status);

}  // namespace gpubench::detail
