// What the GB version the tests are built against offers, found independently of gpubench's own
// detection (gb/gb_internals.hpp), so that tests select their expectations at compile time.
#pragma once

#include <benchmark/benchmark.h>

#include <type_traits>
#include <utility>

namespace gpubench::testing {

template <class S, class = void>
struct GbHasStateName : std::false_type {};
template <class S>
struct GbHasStateName<S, std::void_t<decltype(std::declval<const S&>().name())>> : std::true_type {
};
template <class S, class = void>
struct GbHasRangeSize : std::false_type {};
template <class S>
struct GbHasRangeSize<S, std::void_t<decltype(std::declval<const S&>().range_size())>>
    : std::true_type {};

/// State::name(): GB >= 1.8.
constexpr bool kGbHasStateName = GbHasStateName<benchmark::State>::value;
/// State::range_size(): GB >= 1.9.5.
constexpr bool kGbHasRangeSize = GbHasRangeSize<benchmark::State>::value;

}  // namespace gpubench::testing
