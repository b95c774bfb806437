// Metric groups: named sets of CUPTI metrics that --gpubench_metrics adds to the defaults with
// "+name" (e.g. --gpubench_metrics=+flops,+l2), and the metric names metrics.cpp derives the
// groups' counters from. The one table of groups is in metric_groups.cpp. Also the close
// matches offered for a metric name CUPTI does not know.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "schema/counter_table.hpp"

namespace gpubench::detail {

/// Marks a group in --gpubench_metrics. CUPTI metric names never contain it (they use letters,
/// digits, '_' and '.'), so "+flops" cannot be read as a metric.
inline constexpr char kMetricGroupPrefix = '+';

/// One group: its name (typed after '+'), what it is for, and the CUPTI metrics it adds.
struct MetricGroup {
  std::string_view name;
  std::string_view meaning;
  std::vector<std::string> metrics;
};

/// Every group, in the order --gpubench_list_metrics shows them.
const std::vector<MetricGroup>& MetricGroups();

/// The group called `name` (without the '+'), or nullptr.
const MetricGroup* FindMetricGroup(std::string_view name);

/// "+flops, +l2": the valid group names, for error messages and --help.
std::string MetricGroupNames();

/// Whether every metric of `group` is in `metrics`: then its counters are derived (metrics.cpp)
/// and its metrics are not also written under their own names.
bool GroupActive(const MetricGroup& group, const std::vector<std::string>& metrics);

/// The CUPTI metrics behind one floating-point precision's FLOP count and peak: FLOP = add + mul
/// + 2 x fma thread instructions (predicated on); peak FLOP/cycle = 2 x the fma instructions the
/// SMs can sustain per cycle (`fma_peak`, a .peak_sustained value CUPTI evaluates for the device
/// that ran, so floor-swept SM counts are right).
struct FlopMetrics {
  std::string_view precision;  ///< fp64, fp32, fp16
  std::string_view counter;    ///< the FLOP count's counter, flop_count_<precision>
  std::string_view add, mul, fma, fma_peak;
};

inline constexpr FlopMetrics kFlopMetrics[] = {
    {"fp64", counter::kFlopCountFp64, "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
     "sm__sass_thread_inst_executed_op_dmul_pred_on.sum",
     "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
     "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"},
    {"fp32", counter::kFlopCountFp32, "sm__sass_thread_inst_executed_op_fadd_pred_on.sum",
     "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
     "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"},
    {"fp16", counter::kFlopCountFp16, "sm__sass_thread_inst_executed_op_hadd_pred_on.sum",
     "sm__sass_thread_inst_executed_op_hmul_pred_on.sum",
     "sm__sass_thread_inst_executed_op_hfma_pred_on.sum",
     "sm__sass_thread_inst_executed_op_hfma_pred_on.sum.peak_sustained"},
};

namespace metric_groups_detail {
// metrics.cpp writes each precision's counter by this table's name (CounterSink::SetFromTable):
// the write is checked here, that each is a table counter its writer (kCallEnd) owns.
constexpr bool FlopCountersAreWrittenAtCallEnd() {
  for (const FlopMetrics& precision : kFlopMetrics) {
    const int row = CounterRowOf(precision.counter);
    if (row < 0 || kCounters[row].writer != Writer::kCallEnd) return false;
  }
  return true;
}
}  // namespace metric_groups_detail
static_assert(metric_groups_detail::FlopCountersAreWrittenAtCallEnd(),
              "a kFlopMetrics counter is not a kCallEnd counter of schema/counter_table.hpp");

/// Tensor-pipe activity, % of elapsed cycles averaged over the SMs: tensor-core instructions
/// (HMMA, HGMMA, DMMA, IMMA, ...) have no exact FLOP count in the counters, so the flops group
/// reports how busy the tensor pipe was instead (counter tensor_pipe_pct).
inline constexpr std::string_view kTensorPipeMetric =
    "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed";

/// The l2 group: hit rate of all L2 sector lookups, and the sectors the SMs (L1/TEX) read from
/// and wrote to L2.
inline constexpr std::string_view kL2HitRateMetric = "lts__t_sector_hit_rate.pct";
inline constexpr std::string_view kL2ReadSectorsMetric = "lts__t_sectors_srcunit_tex_op_read.sum";
inline constexpr std::string_view kL2WriteSectorsMetric = "lts__t_sectors_srcunit_tex_op_write.sum";
/// Bytes in an L2 sector, the unit the lts__t_sectors counters count in.
inline constexpr double kL2SectorBytes = 32;

/// Close matches for an unknown metric: its forms when the base name exists, else the three
/// base names nearest by edit distance (keeping the requested form, e.g. ".sum").
std::string SuggestMetrics(const std::string& wanted, const std::vector<std::string>& base_metrics,
                           const std::vector<std::string>& rollups_of_base);

}  // namespace gpubench::detail
