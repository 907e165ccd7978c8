#include "backends/runtime/backend_runtime.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "backends/runtime/specialize.h"
#include "interpreter/evaluator.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// A function's runtime, valid while the arena holding the function lives
// (a later module may reuse the address).
struct CachedRuntime {
  std::weak_ptr<Arena> arena;
  // Holds the function specialised to static shapes (specialize.h), if any.
  std::unique_ptr<Arena> specialized_arena;
  SerializedFunction serialized;
  std::unique_ptr<JsonRuntime> runtime;
  std::mutex run_mu;  // kernels keep scratch state
};

class BackendRuntime {
 public:
  BackendRuntime(std::shared_ptr<const BackendKernels> kernels, BackendRuntimeOptions options)
      : kernels_(std::move(kernels)), options_(std::move(options)) {}

  absl::StatusOr<Value> Call(const ExternalCall& call) {
    const Module* mod = call.interpreter != nullptr ? &call.interpreter->module() : nullptr;
    // The interpreter's thread pool runs the graph's carve kernels; a pool
    // found by address is the live one the call came with.
    const Eigen::ThreadPoolDevice* device =
        call.interpreter != nullptr ? call.interpreter->options().device : options_.runtime.device;
    CARVE_ASSIGN_OR_RETURN(CachedRuntime * cached, Get(call.function, call.args, mod, device));
    std::vector<NDArray> inputs;
    for (const Value& arg : call.args) {
      for (NDArray& t : FlattenTensors(arg)) inputs.push_back(std::move(t));
    }
    std::lock_guard<std::mutex> lock(cached->run_mu);
    NodeObserver observer;
    if (options_.observer) {
      observer = [&](uint32_t nid, const JsonNode&, std::span<const NDArray> in,
                     std::span<const NDArray> out) {
        options_.observer({call.function, &cached->serialized, nid, in, out});
      };
    }
    CARVE_ASSIGN_OR_RETURN(std::vector<NDArray> outputs, cached->runtime->Run(inputs, &observer));
    call.result_fresh = cached->runtime->fresh_outputs() && !options_.observer;
    const Type* ret = call.ret_type != nullptr ? call.ret_type : call.function->body()->checked_type();
    return UnflattenResult(ret, outputs);
  }

  // Builds the runtime of `fn` (a function of `mod` without `?` dims: those
  // are built per argument shapes)
  // before its first call, as a call from an interpreter of `mod` with
  // thread pool `device` would.
  absl::Status Prepare(const Function* fn, const Module& mod,
                       const Eigen::ThreadPoolDevice* device) {
    return Get(fn, {}, &mod, device).status();
  }

  const BackendKernels& kernels() const { return *kernels_; }

 private:
  // The runtime of the function, per shapes of the arguments when its
  // parameters have `?` dims (one graph per set of static shapes).
  absl::StatusOr<CachedRuntime*> Get(const Function* function, std::span<const Value> args,
                                     const Module* mod, const Eigen::ThreadPoolDevice* device) {
    std::shared_ptr<Arena> arena = mod != nullptr ? mod->shared_arena() : nullptr;
    bool dynamic = HasDynamicParams(function);
    CacheKey key{function, dynamic ? SpecializationKey(function, args) : "", device};
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end() && arena != nullptr && it->second->arena.lock() == arena) {
      return it->second.get();
    }
    auto entry = std::make_unique<CachedRuntime>();
    entry->arena = arena;
    const Function* fn = function;
    if (dynamic) {
      entry->specialized_arena = std::make_unique<Arena>();
      CARVE_ASSIGN_OR_RETURN(fn, SpecializeToArgs(function, args, entry->specialized_arena.get(), mod));
    }
    std::string symbol = ExternalSymbol(function, kernels_->backend());
    CARVE_ASSIGN_OR_RETURN(entry->serialized, SerializeFunction(fn, symbol));
    // Run what the codegen emits: the graph as text, parsed back.
    CARVE_ASSIGN_OR_RETURN(JsonGraph graph,
                           ParseJsonGraph(WriteJsonGraph(entry->serialized.graph)));
    std::map<std::string, NDArray, std::less<>> constants(entry->serialized.constants.begin(),
                                                           entry->serialized.constants.end());
    JsonRuntimeOptions runtime_options = options_.runtime;
    runtime_options.device = device;
    CARVE_ASSIGN_OR_RETURN(entry->runtime, JsonRuntime::Create(std::move(graph), constants,
                                                               *kernels_, runtime_options));
    CachedRuntime* raw = entry.get();
    cache_[key] = std::move(entry);
    return raw;
  }

  std::shared_ptr<const BackendKernels> kernels_;
  BackendRuntimeOptions options_;
  std::mutex mu_;
  using CacheKey = std::tuple<const Function*, std::string, const Eigen::ThreadPoolDevice*>;
  absl::flat_hash_map<CacheKey, std::unique_ptr<CachedRuntime>> cache_;
};

absl::StatusOr<Value> Unflatten(const Type* type, std::span<const NDArray> outputs, size_t& next) {
  if (const TupleType* tuple = DynCast<TupleType>(type)) {
    std::vector<Value> fields;
    for (const Type* field : tuple->fields()) {
      CARVE_ASSIGN_OR_RETURN(Value v, Unflatten(field, outputs, next));
      fields.push_back(std::move(v));
    }
    return Value::Tuple(std::move(fields));
  }
  if (next >= outputs.size()) {
    return absl::InternalError("the offloaded function returned too few tensors");
  }
  return Value(outputs[next++]);
}

// The runtimes RegisterBackendRuntime put in ExternalRegistry::Global(), by
// backend (PrepareBackendRuntimes fills their caches).
class RegisteredRuntimes {
 public:
  static RegisteredRuntimes& Global() {
    static auto* runtimes = new RegisteredRuntimes();
    return *runtimes;
  }
  void Set(std::shared_ptr<BackendRuntime> runtime) {
    std::lock_guard<std::mutex> lock(mu_);
    by_backend_[runtime->kernels().backend()] = std::move(runtime);
  }
  std::shared_ptr<BackendRuntime> Find(std::string_view backend) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_backend_.find(backend);
    return it == by_backend_.end() ? nullptr : it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<BackendRuntime>, std::less<>> by_backend_;
};

}  // namespace

BackendRuntimeRegistry& BackendRuntimeRegistry::Global() {
  static auto* registry = new BackendRuntimeRegistry();
  return *registry;
}

void BackendRuntimeRegistry::Register(std::shared_ptr<const BackendKernels> kernels) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& k : kernels_) {
    if (k->backend() == kernels->backend()) {
      k = std::move(kernels);
      return;
    }
  }
  kernels_.push_back(std::move(kernels));
}

std::shared_ptr<const BackendKernels> BackendRuntimeRegistry::Find(std::string_view backend) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : kernels_) {
    if (k->backend() == backend) return k;
  }
  return nullptr;
}

void BackendRuntimeRegistry::SetThreads(int threads) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& k : kernels_) k->SetThreads(threads);
}

void SetBackendThreads(int threads) { BackendRuntimeRegistry::Global().SetThreads(threads); }

std::vector<std::string> BackendRuntimeRegistry::Names() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> out;
  for (const auto& k : kernels_) out.push_back(k->backend());
  std::sort(out.begin(), out.end());
  return out;
}

ExternalFn MakeBackendRuntime(std::shared_ptr<const BackendKernels> kernels,
                              BackendRuntimeOptions options) {
  auto runtime = std::make_shared<BackendRuntime>(std::move(kernels), std::move(options));
  return [runtime](const ExternalCall& call) { return runtime->Call(call); };
}

void RegisterBackendRuntime(std::shared_ptr<const BackendKernels> kernels) {
  BackendRuntimeRegistry::Global().Register(kernels);
  auto runtime = std::make_shared<BackendRuntime>(kernels, BackendRuntimeOptions{});
  RegisteredRuntimes::Global().Set(runtime);
  ExternalRegistry::Global().RegisterRuntime(
      kernels->backend(), [runtime](const ExternalCall& call) { return runtime->Call(call); });
}

int PrepareBackendRuntimes(const Module& mod, const Eigen::ThreadPoolDevice* device) {
  int prepared = 0;
  for (const auto& [gv, fn] : mod.Functions()) {
    std::string_view compiler = fn->GetStringAttr("Compiler");
    if (compiler.empty() || HasDynamicParams(fn)) continue;
    std::shared_ptr<BackendRuntime> runtime = RegisteredRuntimes::Global().Find(compiler);
    // Errors are the first call's to report (the function may never run).
    if (runtime != nullptr && runtime->Prepare(fn, mod, device).ok()) ++prepared;
  }
  return prepared;
}

absl::StatusOr<Value> UnflattenResult(const Type* ret, std::span<const NDArray> outputs) {
  if (ret == nullptr) {
    if (outputs.size() == 1) return Value(outputs[0]);
    std::vector<Value> fields(outputs.begin(), outputs.end());
    return Value::Tuple(std::move(fields));
  }
  size_t next = 0;
  CARVE_ASSIGN_OR_RETURN(Value v, Unflatten(ret, outputs, next));
  if (next != outputs.size()) {
    return absl::InternalError(fmt::format("the offloaded function returned {} tensors, its type "
                                           "holds {}", outputs.size(), next));
  }
  return v;
}

}  // namespace carve
