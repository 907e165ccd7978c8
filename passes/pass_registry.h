// Passes by TVM name, with TVM's Python signatures, and textual pipelines:
//
//   InferType,MergeComposite(dnnl),AnnotateTarget(dnnl,bnns,include_non_call_ops=False),
//   MergeCompilerRegions,PartitionGraph(mod_name=default,bind_constants=True)
//
// Arguments are positional first, then `name=value` keywords. Values are
// words (`dnnl`, `NHWC`, `True`, `3`), quoted strings, or lists `[a,b]`; a
// list parameter also takes all remaining positional arguments
// (`AnnotateTarget(dnnl,bnns)`). Errors point into the pipeline text
// (`<pipeline>:1:17: error: unknown pass 'MergeComposit' (did you mean
// 'MergeComposite'?)`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/pass.h"

namespace carve {

enum class PassParamKind { kString, kBool, kInt, kStringList };

struct PassParam {
  std::string name;
  PassParamKind kind = PassParamKind::kString;
  // The default, as pipeline text; nullopt for a required parameter.
  std::optional<std::string> default_value;
  std::string help;
};

// Validated arguments of one pass, by parameter name (defaults filled in).
class PassArgs {
 public:
  struct Value {
    std::string text;
    bool flag = false;
    int64_t number = 0;
    std::vector<std::string> list;
  };

  const std::string& String(std::string_view name) const { return Get(name).text; }
  bool Bool(std::string_view name) const { return Get(name).flag; }
  int64_t Int(std::string_view name) const { return Get(name).number; }
  const std::vector<std::string>& Strings(std::string_view name) const { return Get(name).list; }
  void Set(std::string name, Value value) { values_[std::move(name)] = std::move(value); }

 private:
  const Value& Get(std::string_view name) const;
  std::map<std::string, Value, std::less<>> values_;
};

// A registered pass: its name, signature and factory.
struct PassInfo {
  std::string name;
  std::string summary;
  std::vector<PassParam> params;
  std::function<absl::StatusOr<PassPtr>(const PassArgs& args)> create;
  // TVM's opt level for the pass (the number TVM passes to CreateFunction-
  // / CreateModulePass): pipelines skip it below that level (pass_gate.h).
  int opt_level = 0;
};

class PassRegistry {
 public:
  // The process-wide registry, holding carve's passes.
  static PassRegistry& Global();

  // Registers (or replaces) a pass.
  void Register(PassInfo info);
  const PassInfo* Find(std::string_view name) const;
  // Every pass, sorted by name.
  std::vector<const PassInfo*> All() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<PassInfo>, std::less<>> passes_;
};

// `status` blamed on the argument `param` of the pass being built (on
// element `element` of a list argument, when given): a PassInfo::create
// returns it for an argument it rejects, and the pipeline parser puts its
// caret under that argument as written (under the pass name when the
// argument took its default). The message and code stay `status`'s.
absl::Status BlameArgument(absl::Status status, std::string_view param,
                           std::optional<size_t> element = std::nullopt);

// "AnnotateTarget(targets..., include_non_call_ops=True)".
std::string SignatureText(const PassInfo& info);

// Parses a pipeline into one Sequential named "Pipeline". Errors are
// InvalidArgument with a span into the text (registered as `<pipeline>`).
absl::StatusOr<PassPtr> ParsePipeline(std::string_view text,
                                      const PassRegistry& registry = PassRegistry::Global());

// Registers carve's built-in passes in `registry` (Global() calls it).
void RegisterBuiltinPasses(PassRegistry& registry);

}  // namespace carve
