// The work recorder (backend.hpp) on CUPTI's driver and resource callbacks: each kernel launch,
// copy, set and graph launch of an instance's set-up and first body becomes one canonical line
// of its work signature (gpu/plan/work_signature.hpp). Module loads are read as they happen, so
// that a kernel's line carries the hash of its own machine code.
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "gpu/backend.hpp"
#include "gpu/cuda/driver_entry.hpp"
#include "gpu/cupti/cupti_callbacks.hpp"
#include "gpu/cupti/work/cupti_work_lines.hpp"
#include "gpu/plan/work_signature.hpp"

namespace gpubench::detail {
namespace {

// clang-format off
const std::vector<CUpti_CallbackId>& RecordedCalls() {
  static const std::vector<CUpti_CallbackId> ids = {
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeerAsync_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2,
      CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16Async_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8Async_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16Async_ptsz,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async,
      CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32Async_ptsz,
      // A graph updated after its instantiation no longer matches what was read of it then.
      CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2,
      CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2,
      CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams,
      CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams,
      CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams,
  };
  return ids;
}
// clang-format on

// The driver functions the recorder calls, through the runtime (driver_entry.hpp): gpubench
// links no libcuda. Read once; a missing one leaves the work it reads unsigned.
struct Driver {
  decltype(&cuFuncGetName) function_name =
      DriverFunction<decltype(&cuFuncGetName)>("cuFuncGetName");
  decltype(&cuFuncGetParamInfo) parameter_info =
      DriverFunction<decltype(&cuFuncGetParamInfo)>("cuFuncGetParamInfo");
  decltype(&cuKernelGetFunction) kernel_function =
      DriverFunction<decltype(&cuKernelGetFunction)>("cuKernelGetFunction");
  decltype(&cuGraphGetNodes) graph_nodes =
      DriverFunction<decltype(&cuGraphGetNodes)>("cuGraphGetNodes");
  decltype(&cuGraphNodeGetType) node_type =
      DriverFunction<decltype(&cuGraphNodeGetType)>("cuGraphNodeGetType");
  decltype(&cuGraphKernelNodeGetParams) kernel_node =
      DriverFunction<decltype(&cuGraphKernelNodeGetParams)>("cuGraphKernelNodeGetParams");
  decltype(&cuGraphMemsetNodeGetParams) memset_node =
      DriverFunction<decltype(&cuGraphMemsetNodeGetParams)>("cuGraphMemsetNodeGetParams");
  decltype(&cuGraphMemcpyNodeGetParams) memcpy_node =
      DriverFunction<decltype(&cuGraphMemcpyNodeGetParams)>("cuGraphMemcpyNodeGetParams");
};

const Driver& TheDriver() {
  static const Driver driver;
  return driver;
}

std::string Dims(unsigned x, unsigned y, unsigned z) {
  return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z);
}

struct Dims3 {
  unsigned x = 1, y = 1, z = 1;
};

class CuptiWorkRecorder final : public WorkRecorder {
 public:
  CuptiWorkRecorder() {
    callbacks_ = DriverCallbacks::Get(&unavailable_);
    if (callbacks_ == nullptr) return;
    callbacks_->AddListener(this, &OnCall);
    callbacks_->SetResourceListener(this, &OnResource);
  }
  ~CuptiWorkRecorder() override {
    if (callbacks_ == nullptr) return;
    if (recording_) {
      callbacks_->Enable(RecordedCalls(), false);
      callbacks_->EnableResources(false);
    }
    if (modules_watched_) callbacks_->EnableResources(false);
    callbacks_->RemoveListener(this);
    callbacks_->SetResourceListener(nullptr, nullptr);
  }

  std::string UnavailableReason() const override { return unavailable_; }

  void Begin() override {
    if (callbacks_ == nullptr) return;
    const bool was_recording = recording();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      items_.clear();
      unsigned_why_.clear();
      recording_ = true;
      held_ = false;
    }
    if (was_recording) return;  // callbacks already on
    if (!callbacks_->EnableResources(true) || !callbacks_->Enable(RecordedCalls(), true)) {
      std::lock_guard<std::mutex> lock(mutex_);
      recording_ = false;
      unavailable_ = "cuptiSubscribe was refused (another CUPTI client)";
    }
  }

  bool recording() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return recording_;
  }

  WorkRecord End() override {
    WorkRecord record;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!recording_) return record;
      recording_ = false;
      record.watched = true;
      record.items = std::move(items_);
      record.unsigned_why = unsigned_why_;
      items_.clear();
    }
    callbacks_->Enable(RecordedCalls(), false);
    callbacks_->EnableResources(false);
    return record;
  }

  void Hold(bool on) override {
    std::lock_guard<std::mutex> lock(mutex_);
    held_ = on;
  }

  void WatchModules(bool on) override {
    if (callbacks_ == nullptr || on == modules_watched_) return;
    modules_watched_ = on;
    callbacks_->EnableResources(on);
  }

 private:
  static void OnCall(void* self, CUpti_CallbackId id, const CUpti_CallbackData* data) {
    // A kernel is read when its launch returns: under lazy loading its module is loaded inside
    // the launch (the resource callback hashes its code then). Everything else is read as it
    // is called, before the host may change the bytes it copies.
    const CUpti_ApiCallbackSite site = IsKernelLaunch(id) ? CUPTI_API_EXIT : CUPTI_API_ENTER;
    if (data->callbackSite != site) return;
    // The subscription is shared: the stream watch's calls (stream creation, events,
    // synchronisation) arrive here too, and are no work of the signature's.
    if (!IsRecordedCall(id)) return;
    static_cast<CuptiWorkRecorder*>(self)->Record(id, data);
  }
  static bool IsRecordedCall(CUpti_CallbackId id) {
    static const std::set<CUpti_CallbackId> recorded(RecordedCalls().begin(),
                                                     RecordedCalls().end());
    return recorded.count(id) != 0;
  }
  static bool IsKernelLaunch(CUpti_CallbackId id) {
    switch (id) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return true;
      default:
        return false;
    }
  }
  static void OnResource(void* self, CUpti_CallbackId id, const CUpti_ResourceData* data) {
    static_cast<CuptiWorkRecorder*>(self)->Resource(id, data);
  }

  void Unsigned(const std::string& why) {
    if (unsigned_why_.empty()) unsigned_why_ = why;
  }

  // Module loads and graph instantiations, whenever the resource domain is on.
  void Resource(CUpti_CallbackId id, const CUpti_ResourceData* data) {
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      const auto* module = static_cast<const CUpti_ModuleResourceData*>(data->resourceDescriptor);
      if (module == nullptr || module->pCubin == nullptr) return;
      Result<CubinFunctions> functions = HashCubinFunctions(module->pCubin, module->cubinSize);
      std::lock_guard<std::mutex> lock(mutex_);
      if (!functions.ok()) {
        unreadable_modules_.push_back(functions.status().message());
        return;
      }
      for (const auto& [name, hash] : functions.value().code_hash) {
        std::set<uint64_t>& known = code_[name];
        known.insert(hash);
      }
      return;
    }
    if (id == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
      const auto* graph = static_cast<const CUpti_GraphData*>(data->resourceDescriptor);
      if (graph == nullptr || graph->graphExec == nullptr) return;
      std::string description = DescribeGraph(graph->graph);
      std::lock_guard<std::mutex> lock(mutex_);
      graphs_[graph->graphExec] = std::move(description);
    }
  }

  // The runtime launches through a context-independent kernel handle (a CUkernel passed as the
  // CUfunction), which the cuFunc* calls refuse as an invalid handle: its function in the current
  // context answers them.
  static CUfunction FunctionInContext(CUfunction function) {
    const Driver& driver = TheDriver();
    size_t offset = 0, size = 0;
    if (driver.parameter_info(function, 0, &offset, &size) != CUDA_ERROR_INVALID_HANDLE ||
        driver.kernel_function == nullptr) {
      return function;
    }
    CUfunction in_context = nullptr;
    if (driver.kernel_function(&in_context, reinterpret_cast<CUkernel>(function)) != CUDA_SUCCESS) {
      return function;
    }
    return in_context;
  }

  // A kernel's line; `why` gets the reason when part of it cannot be signed.
  std::string KernelLine(CUfunction function, const char* symbol, const Dims3& grid,
                         const Dims3& block, unsigned shared, const std::string& cluster,
                         void** params, void** extra, std::string* why) {
    const char* name = symbol;
    const Driver& driver = TheDriver();
    if (driver.parameter_info != nullptr) function = FunctionInContext(function);
    if (name == nullptr && (driver.function_name == nullptr ||
                            driver.function_name(&name, function) != CUDA_SUCCESS)) {
      name = nullptr;
    }
    const std::string kernel = name != nullptr ? name : "?";
    std::string line = "kernel " + kernel;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      const auto found = code_.find(kernel);
      if (found == code_.end()) {
        *why = "the machine code of kernel " + kernel +
               " was not seen (its module was loaded before gpubench watched)";
      } else if (found->second.size() != 1) {
        *why = "two modules hold different machine code under the name " + kernel;
      } else {
        line += " code=" + HexWord(*found->second.begin());
      }
    }
    line += " grid=" + Dims(grid.x, grid.y, grid.z) + " block=" + Dims(block.x, block.y, block.z) +
            " smem=" + std::to_string(shared) + cluster;
    std::vector<ParamSlice> slices;
    size_t end = 0;
    if (driver.parameter_info == nullptr) {
      *why = "the driver cannot say kernel " + kernel + "'s parameters (cuFuncGetParamInfo)";
    }
    for (size_t index = 0; driver.parameter_info != nullptr; ++index) {
      ParamSlice slice;
      const CUresult read = driver.parameter_info(function, index, &slice.offset, &slice.size);
      if (read == CUDA_ERROR_INVALID_VALUE) break;  // past the last parameter
      if (read != CUDA_SUCCESS) {
        // Arguments left out would make two launches that differ in them look alike.
        *why = "the driver could not say kernel " + kernel +
               "'s parameters (cuFuncGetParamInfo: " + "error " +
               std::to_string(static_cast<int>(read)) + ")";
        break;
      }
      slices.push_back(slice);
      end = std::max(end, slice.offset + slice.size);
    }
    std::vector<uint8_t> bytes(end);
    if (params != nullptr) {
      for (size_t index = 0; index < slices.size(); ++index) {
        std::memcpy(bytes.data() + slices[index].offset, params[index], slices[index].size);
      }
    } else if (extra != nullptr) {
      const void* buffer = nullptr;
      size_t buffer_size = 0;
      for (size_t index = 0; extra[index] != CU_LAUNCH_PARAM_END; index += 2) {
        if (extra[index] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = extra[index + 1];
        if (extra[index] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
          buffer_size = *static_cast<const size_t*>(extra[index + 1]);
        }
      }
      if (buffer == nullptr || buffer_size < end) {
        *why = "kernel " + kernel + " was launched with an argument buffer gpubench cannot read";
      } else {
        std::memcpy(bytes.data(), buffer, end);
      }
    }
    DriverAllocations allocations;
    line += " args=" + CanonicalArguments(slices, bytes.data(), allocations);
    return line;
  }

  // A graph's nodes in the order the driver lists them: kernels as launches, sets and copies
  // by their sizes, other nodes by their type.
  std::string DescribeGraph(CUgraph graph) {
    const Driver& driver = TheDriver();
    if (driver.graph_nodes == nullptr || driver.node_type == nullptr ||
        driver.kernel_node == nullptr || driver.memset_node == nullptr ||
        driver.memcpy_node == nullptr) {
      return {};
    }
    size_t count = 0;
    if (graph == nullptr || driver.graph_nodes(graph, nullptr, &count) != CUDA_SUCCESS) return {};
    std::vector<CUgraphNode> nodes(count);
    if (driver.graph_nodes(graph, nodes.data(), &count) != CUDA_SUCCESS) return {};
    std::string text = "graph nodes=" + std::to_string(count);
    for (CUgraphNode node : nodes) {
      CUgraphNodeType type;
      if (driver.node_type(node, &type) != CUDA_SUCCESS) return {};
      text += " | ";
      if (type == CU_GRAPH_NODE_TYPE_KERNEL) {
        CUDA_KERNEL_NODE_PARAMS params{};
        if (driver.kernel_node(node, &params) != CUDA_SUCCESS) return {};
        std::string why;
        text +=
            KernelLine(params.func, nullptr, {params.gridDimX, params.gridDimY, params.gridDimZ},
                       {params.blockDimX, params.blockDimY, params.blockDimZ},
                       params.sharedMemBytes, "", params.kernelParams, params.extra, &why);
        if (!why.empty()) return {};
      } else if (type == CU_GRAPH_NODE_TYPE_MEMSET) {
        CUDA_MEMSET_NODE_PARAMS params{};
        if (driver.memset_node(node, &params) != CUDA_SUCCESS) return {};
        text += "set element=" + std::to_string(params.elementSize) +
                " value=" + std::to_string(params.value) +
                " width=" + std::to_string(params.width) +
                " height=" + std::to_string(params.height);
      } else if (type == CU_GRAPH_NODE_TYPE_MEMCPY) {
        CUDA_MEMCPY3D params{};
        if (driver.memcpy_node(node, &params) != CUDA_SUCCESS) return {};
        if (params.srcMemoryType == CU_MEMORYTYPE_HOST) return {};  // host bytes: not read here
        text += "copy width=" + std::to_string(params.WidthInBytes) +
                " height=" + std::to_string(params.Height) +
                " depth=" + std::to_string(params.Depth) +
                " kinds=" + std::to_string(params.srcMemoryType) + "," +
                std::to_string(params.dstMemoryType);
      } else {
        text += "node type=" + std::to_string(static_cast<int>(type));
      }
    }
    return text;
  }

  std::string HostFunctionName(const void* function) {
    Dl_info info{};
    if (dladdr(function, &info) != 0 && info.dli_sname != nullptr) return info.dli_sname;
    if (info.dli_fbase != nullptr) {
      return "+" + std::to_string(reinterpret_cast<uintptr_t>(function) -
                                  reinterpret_cast<uintptr_t>(info.dli_fbase));
    }
    return "?";
  }

  void Add(std::string line, const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!recording_) return;
    items_.push_back(std::move(line));
    if (!why.empty()) Unsigned(why);
  }

  void Record(CUpti_CallbackId id, const CUpti_CallbackData* data) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!recording_ || held_) return;
    }
    const void* p = data->functionParams;
    std::string why;
    switch (id) {
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const auto* k = static_cast<const cuLaunchKernel_params*>(p);
        std::string line =
            KernelLine(k->f, data->symbolName, {k->gridDimX, k->gridDimY, k->gridDimZ},
                       {k->blockDimX, k->blockDimY, k->blockDimZ}, k->sharedMemBytes, "",
                       k->kernelParams, k->extra, &why);
        return Add(std::move(line), why);
      }
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const auto* k = static_cast<const cuLaunchCooperativeKernel_params*>(p);
        std::string line =
            KernelLine(k->f, data->symbolName, {k->gridDimX, k->gridDimY, k->gridDimZ},
                       {k->blockDimX, k->blockDimY, k->blockDimZ}, k->sharedMemBytes,
                       " cooperative", k->kernelParams, nullptr, &why);
        return Add(std::move(line), why);
      }
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const auto* k = static_cast<const cuLaunchKernelEx_params*>(p);
        if (k->config == nullptr) return;
        const CUlaunchConfig& c = *k->config;
        std::string attributes;
        for (unsigned index = 0; index < c.numAttrs; ++index) {
          const CUlaunchAttribute& a = c.attrs[index];
          attributes += " attr" + std::to_string(static_cast<int>(a.id));
          if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            attributes +=
                "=" + Dims(a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z);
          } else if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            attributes += "=" + std::to_string(a.value.cooperative);
          } else if (a.id == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
            attributes += "=" + std::to_string(a.value.priority);
          }
        }
        std::string line = KernelLine(k->f, data->symbolName, {c.gridDimX, c.gridDimY, c.gridDimZ},
                                      {c.blockDimX, c.blockDimY, c.blockDimZ}, c.sharedMemBytes,
                                      attributes, k->kernelParams, k->extra, &why);
        return Add(std::move(line), why);
      }
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz: {
        const CUgraphExec exec = static_cast<const cuGraphLaunch_params*>(p)->hGraph;
        std::lock_guard<std::mutex> lock(mutex_);
        const auto found = graphs_.find(exec);
        if (found == graphs_.end() || found->second.empty()) {
          items_.push_back("graph ?");
          Unsigned(found == graphs_.end()
                       ? "a graph launched was instantiated before its instance began"
                       : "a graph launched has a node gpubench cannot describe");
        } else {
          items_.push_back(found->second);
        }
        return;
      }
      case CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphExecKernelNodeSetParams_v2:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemcpyNodeSetParams:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphExecMemsetNodeSetParams:
      case CUPTI_DRIVER_TRACE_CBID_cuGraphExecNodeSetParams: {
        std::lock_guard<std::mutex> lock(mutex_);
        items_.push_back(std::string("graph update ") + data->functionName);
        Unsigned(std::string("a graph was changed after its instantiation (") + data->functionName +
                 ")");
        return;
      }
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc:
      case CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc_ptsz: {
        const auto* h = static_cast<const cuLaunchHostFunc_params*>(p);
        // The host function runs inside the stream's timeline: host time in a held span.
        return Add("host function " + HostFunctionName(reinterpret_cast<const void*>(h->fn)),
                   "a host function launched into a stream (cudaLaunchHostFunc) runs host code "
                   "inside the GPU's timeline");
      }
      default:
        break;
    }
    std::string line = CopyOrSetLine(id, data, &why);
    Add(std::move(line), why);
  }

  DriverCallbacks* callbacks_ = nullptr;
  std::string unavailable_;
  mutable std::mutex mutex_;
  bool recording_ = false;
  bool held_ = false;
  bool modules_watched_ = false;
  std::vector<std::string> items_;
  std::string unsigned_why_;
  std::map<std::string, std::set<uint64_t>> code_;  // kernel name -> its code's hashes seen
  std::vector<std::string> unreadable_modules_;     // why a module's cubin could not be read
  std::map<CUgraphExec, std::string> graphs_;       // instantiated graphs, as described
};

}  // namespace

std::unique_ptr<WorkRecorder> MakeCuptiWorkRecorder() {
  return std::make_unique<CuptiWorkRecorder>();
}

}  // namespace gpubench::detail
