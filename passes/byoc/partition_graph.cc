#include "passes/byoc/partition_graph.h"

#include <algorithm>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "absl/container/inlined_vector.h"
#include "ir/post_order.h"
#include "ir/rebuild.h"
#include "passes/byoc/annotated_region_set.h"
#include "passes/byoc/annotation.h"
#include "passes/infer/infer_type.h"
#include "passes/infer/type_annotations.h"
#include "passes/byoc/region_verify.h"
#include "passes/rewrite/rewrite_util.h"
#include "passes/byoc/target.h"
#include "support/status_macros.h"

namespace carve {
namespace {

using RegionId = AnnotatedRegionSet::RegionId;

// A constant, or a tuple of constants (TVM binds both).
bool IsConstantValue(const Expr* e) {
  if (Isa<Constant>(e)) return true;
  const Tuple* t = DynCast<Tuple>(e);
  if (t == nullptr) return false;
  for (const Expr* f : t->fields()) {
    if (!Isa<Constant>(f)) return false;
  }
  return true;
}

// The attributes of a partitioned function, in the order TVM prints them
// (`compiler` is AttrValue::Str(target)). Interned at once: a graph can have
// tens of thousands of regions.
const Attrs* RegionFunctionAttrs(const AttrValue& compiler, std::string_view symbol) {
  const AttrEntry entries[] = {{attr::kCompiler, compiler},
                               {attr::kPrimitive, AttrValue::Int(1)},
                               {attr::kInline, AttrValue::Int(1)},
                               {attr::kGlobalSymbol, AttrValue::Str(symbol)}};
  return InternAttrs(nullptr, entries);
}

// A global name not used in `mod` (nor in `taken`) yet: `name`, else
// `name_1`, `name_2`, ...
std::string FreshGlobalName(const Module& mod, const std::string& name,
                            const absl::flat_hash_set<std::string>& taken = {}) {
  auto is_free = [&](const std::string& n) {
    return mod.FindGlobalVar(n) == nullptr && !taken.contains(n);
  };
  if (is_free(name)) return name;
  for (int i = 1;; ++i) {
    std::string candidate = fmt::format("{}_{}", name, i);
    if (is_free(candidate)) return candidate;
  }
}

// What the partitioner knows about one region's function.
struct RegionFunction {
  bool created = false;
  // Parameters and the values passed for them, in first-use order.
  std::vector<std::pair<const Var*, const Expr*>> params;
  // The distinct values the region's compiler_ends read, in output order,
  // and, once the function is made, the call or projection replacing each.
  std::vector<const Expr*> outputs;
  std::vector<const Expr*> replacements;
  // Position in `outputs` by value, for regions with many outputs.
  absl::flat_hash_map<const Expr*, uint32_t> output_index;
};

// Regions with at most this many outputs find one by a linear search.
constexpr size_t kFewOutputs = 8;

// What the region set says of a compiler_begin or compiler_end: its region
// and, for a begin, its position among the region's inputs.
struct AnnotationInfo {
  AnnotatedRegionSet::RegionId region = AnnotatedRegionSet::kNoRegion;
  int32_t input_index = -1;
};

// Rewrites one function: regions become calls of new global functions. The
// walk is TVM's: post order (ir/post_order.h), where reaching a region's
// first compiler_end first visits every output of the region (so parameters
// appear in TVM's order). The memo table holds one entry per visited node:
// nullptr while the node is being visited (reaching it again means a
// cycle), then its rewritten version. Atoms (variables, constants, ops,
// globals) and composite functions stay as they are and never enter it (see
// KeptAsIs).
//
// Run leaves the module alone: the caller adds the new functions (Commit)
// once the regions are known not to depend on each other.
class Partitioner {
 public:
  Partitioner(Module& mod, const AnnotatedRegionSet& set, std::string_view func_name,
              std::string prefix, bool bind_constants)
      : mod_(mod),
        set_(set),
        func_name_(func_name),
        builder_(mod.arena()),
        prefix_(std::move(prefix)),
        bind_constants_(bind_constants),
        dense_(set.NumRegionIds(), -1) {
    std::vector<RegionId> ids = set_.RegionIds();
    funcs_.resize(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      RegionId r = ids[i];
      dense_[r] = static_cast<int32_t>(i);
      int32_t k = 0;
      set_.ForEachIn(r, [&](const Call* begin) {
        annotations_.TryEmplace(begin, AnnotationInfo{r, k++});
      });
      std::vector<const Call*> ends = set_.Outs(r);
      for (const Call* end : ends) annotations_.TryEmplace(end, AnnotationInfo{r, 0});
      SetOutputs(funcs_[i], ends);
    }
  }

  // True when a target's hook rewrote a partition (types may have changed).
  bool hooked() const { return hooked_; }

  // Adds the functions Run made to the module (Run itself leaves the module
  // alone, so that a failed check leaves it as it was).
  void Commit() {
    for (const auto& [gv, fn] : new_functions_) mod_.Add(gv, fn);
  }

  absl::StatusOr<const Function*> Run(const Function* fn) {
    if (KeptAsIs(fn)) return fn;
    absl::Status walked = WalkPostOrder(
        static_cast<const Expr*>(fn), [&](const Expr* e) { return Enter(e); },
        [&](const Expr* e, auto push) {
          ForEachChild(e, [&](const Expr* c) {
            if (!KeptAsIs(c)) push(c);
          });
          if (!IsEnd(e)) return;
          const RegionFunction& f = Func(Info(e).region);
          if (f.created) return;
          for (const Expr* out : f.outputs) {
            if (!KeptAsIs(out)) push(out);
          }
        },
        [&](const Expr* e) -> absl::Status {
          CARVE_RETURN_IF_ERROR(cycle_);
          CARVE_ASSIGN_OR_RETURN(const Expr* out, Rewrite(e));
          *memo_.Find(e) = out;
          return absl::OkStatus();
        });
    CARVE_RETURN_IF_ERROR(cycle_);
    CARVE_RETURN_IF_ERROR(walked);
    return Cast<Function>(At(fn));
  }

 private:
  bool Enter(const Expr* e) {
    auto [slot, inserted] = memo_.TryEmplace(e, nullptr);
    if (!inserted && *slot == nullptr && cycle_.ok()) {
      // Only regions that feed each other can lead back to a node being
      // visited; the caller's cycle check then names the cycle.
      cycle_ = absl::FailedPreconditionError(fmt::format(
          "PartitionGraph: the regions around {} depend on each other", DescribeNode(e)));
    }
    return inserted;
  }

  // What the region set says of a compiler_begin or compiler_end (a
  // compiler_end no region lists as an output: its region, from the set).
  AnnotationInfo Info(const Expr* e) const {
    const AnnotationInfo* info = annotations_.Find(e);
    if (info != nullptr) return *info;
    return {IsEnd(e) ? set_.GetRegion(e) : AnnotatedRegionSet::kNoRegion, -1};
  }

  absl::StatusOr<const Expr*> Rewrite(const Expr* e) {
    if (IsBegin(e)) return OpenInput(Cast<Call>(e), At(Cast<Call>(e)->args()[0]), Info(e));
    if (IsEnd(e)) {
      RegionId r = Info(e).region;
      RegionFunction& f = Func(r);
      if (!f.created) CARVE_RETURN_IF_ERROR(CreateFunction(r, Cast<Call>(e)));
      return Replacement(f, Cast<Call>(e)->args()[0]);
    }
    absl::InlinedVector<const Expr*, 8> kids;
    bool changed = false;
    ForEachChild(e, [&](const Expr* c) {
      kids.push_back(At(c));
      changed |= kids.back() != c;
    });
    return changed ? RebuildWithChildren(builder_, e, kids) : e;
  }

  static bool IsBegin(const Expr* e) { return IsCompilerBegin(e); }
  static bool IsEnd(const Expr* e) { return IsCompilerEnd(e); }

  // Atoms, and composite functions (nothing to partition inside), are their
  // own rewritten version: they never enter the memo table (a composite
  // function lies elsewhere in memory than the graph around it, and so
  // would its memo entry).
  static bool KeptAsIs(const Expr* e) {
    if (e->is_atom()) return true;
    const Function* fn = DynCast<Function>(e);
    return fn != nullptr && fn->HasAttr(attr::kComposite);
  }

  // The parameter (or bound constant) standing for a compiler_begin's input
  // (rewritten: `value`). Inputs reading the same value share one parameter.
  absl::StatusOr<const Expr*> OpenInput(const Call* begin, const Expr* value,
                                        AnnotationInfo info) {
    const Expr* source = begin->args()[0];
    while (IsBegin(source) || IsEnd(source)) source = Cast<Call>(source)->args()[0];
    RegionId r = info.region != AnnotatedRegionSet::kNoRegion ? info.region : set_.GetRegion(begin);
    RegionFunction& f = Func(r);
    const Expr** input = &inputs_[{source, r}];
    if (*input != nullptr) return *input;
    if (bind_constants_ && IsConstantValue(value)) {
      *input = value;
      return value;
    }
    if (info.region == AnnotatedRegionSet::kNoRegion) {
      // A merge made this input internal to its region (TVM fails a check).
      return absl::FailedPreconditionError(fmt::format(
          "PartitionGraph: {} reads a value inside its own region", DescribeNode(begin)));
    }
    // TVM's name: "<target>_<id>_i<k>", k the input's position in the region.
    std::string name = fmt::format("{}_{}_i{}", set_.Target(r), r, info.input_index);
    const Var* var = builder_.MakeVar(name, begin->checked_type());
    var->set_checked_type(begin->checked_type());
    f.params.emplace_back(var, value);
    *input = var;
    return var;
  }

  RegionFunction& Func(RegionId r) { return funcs_[dense_[r]]; }

  // Records the distinct values `ends` read, in order.
  static void SetOutputs(RegionFunction& f, const std::vector<const Call*>& ends) {
    for (const Call* end : ends) {
      const Expr* out = end->args()[0];
      bool fresh = ends.size() <= kFewOutputs
                       ? std::find(f.outputs.begin(), f.outputs.end(), out) == f.outputs.end()
                       : f.output_index.try_emplace(out, f.outputs.size()).second;
      if (fresh) f.outputs.push_back(out);
    }
  }

  // What replaces output value `out` of the made function `f`.
  static const Expr* Replacement(const RegionFunction& f, const Expr* out) {
    if (f.output_index.empty()) {
      auto it = std::find(f.outputs.begin(), f.outputs.end(), out);
      return f.replacements[it - f.outputs.begin()];
    }
    return f.replacements[f.output_index.at(out)];
  }

  absl::Status CreateFunction(RegionId r, const Call* end) {
    RegionFunction& f = Func(r);
    f.created = true;
    const std::vector<const Expr*>& outs = f.outputs;
    std::vector<const Expr*> fields;
    std::vector<const Type*> field_types;
    for (const Expr* out : outs) {
      fields.push_back(At(out));
      field_types.push_back(out->checked_type());
    }
    std::vector<const Var*> params;
    std::vector<const Expr*> args;
    std::vector<const Type*> param_types;
    for (const auto& [var, value] : f.params) {
      params.push_back(var);
      args.push_back(value);
      param_types.push_back(var->checked_type());
    }
    const Expr* body = fields[0];
    const Type* ret_type = end->args()[0]->checked_type();
    const Type* body_type = ret_type;
    if (fields.size() > 1) {
      body = builder_.MakeTuple(fields);
      body_type = AllKnown(field_types) ? TupleTy(field_types) : nullptr;
      body->set_checked_type(body_type);
      // TVM leaves it unset here and its InferType fills it: the same.
      ret_type = body_type;
    }
    std::string_view target = set_.Target(r);
    std::string name = FreshGlobalName(
        mod_, SanitizeName(fmt::format("{}_{}_{}_{}", prefix_, target, func_name_, r)),
        new_names_);
    const Function* fn =
        builder_.MakeFunction(params, body, ret_type, RegionFunctionAttrs(CompilerAttr(target), name));
    if (body_type != nullptr && AllKnown(param_types)) {
      fn->set_checked_type(FuncTy(param_types, body_type));
    }
    CARVE_ASSIGN_OR_RETURN(fn, ApplyHook(target, fn));
    const GlobalVar* gv = builder_.MakeGlobalVar(name);
    new_names_.insert(name);
    new_functions_.emplace_back(gv, fn);
    const Call* call = builder_.MakeCall(gv, args);
    call->set_checked_type(body_type);
    if (outs.size() == 1) {
      f.replacements = {call};
      return absl::OkStatus();
    }
    for (size_t i = 0; i < outs.size(); ++i) {
      const TupleGetItem* item = builder_.MakeTupleGetItem(call, static_cast<int>(i));
      item->set_checked_type(outs[i]->checked_type());
      f.replacements.push_back(item);
    }
    return absl::OkStatus();
  }

  // AttrValue::Str(target), kept for the few targets of a graph.
  const AttrValue& CompilerAttr(std::string_view target) {
    for (const auto& [name, value] : compiler_attrs_) {
      if (name == target) return value;
    }
    return compiler_attrs_.emplace_back(target, AttrValue::Str(target)).second;
  }

  // The target's `relay.ext.<target>.optimize` hook, when it has one.
  absl::StatusOr<const Function*> ApplyHook(std::string_view target, const Function* fn) {
    TargetSpecPtr spec = TargetRegistry::Global().Find(target);
    if (spec == nullptr || spec->partition_hook() == nullptr) return fn;
    hooked_ = true;
    return spec->partition_hook()(fn, mod_.arena());
  }

  static bool AllKnown(const std::vector<const Type*>& types) {
    for (const Type* t : types) {
      if (t == nullptr) return false;
    }
    return true;
  }

  Module& mod_;
  const AnnotatedRegionSet& set_;
  std::string_view func_name_;
  IRBuilder builder_;
  std::string prefix_;
  bool bind_constants_;
  bool hooked_ = false;
  // The rewritten version of a visited node (it must be there).
  const Expr* At(const Expr* e) const { return KeptAsIs(e) ? e : *memo_.Find(e); }

  AddressMap<const Expr*> memo_;
  AddressMap<AnnotationInfo> annotations_;  // of the regions' begins and ends
  absl::Status cycle_;                      // the walk reached a node being visited
  // The functions made, added to the module by Commit().
  std::vector<std::pair<const GlobalVar*, const Function*>> new_functions_;
  absl::flat_hash_set<std::string> new_names_;
  std::vector<std::pair<std::string_view, AttrValue>> compiler_attrs_;
  // (Input value (first non-annotation ancestor), region) -> the region's
  // parameter or bound constant for it.
  absl::flat_hash_map<std::pair<const Expr*, RegionId>, const Expr*> inputs_;
  // The live regions' functions, and the position of each region id's
  // among them (-1 for ids merged away).
  std::vector<RegionFunction> funcs_;
  std::vector<int32_t> dense_;
};

// Replaces calls of renamed globals.
class GlobalRenamer : public TypedMutator {
 public:
  GlobalRenamer(Arena* arena, const absl::flat_hash_map<const GlobalVar*, const GlobalVar*>& map)
      : TypedMutator(arena), map_(map) {}

 protected:
  const Expr* Rewrite(const Expr* e) override {
    if (const GlobalVar* gv = DynCast<GlobalVar>(e)) {
      auto it = map_.find(gv);
      return it == map_.end() ? e : it->second;
    }
    return RebuildTyped(e);
  }

 private:
  const absl::flat_hash_map<const GlobalVar*, const GlobalVar*>& map_;
};

// TVM's NameMangleExtFuncs for the functions that carried `Compiler` before
// this run (the new ones are named mangled from the start).
void MangleExistingExternalFunctions(Module& mod, const std::string& prefix,
                                     const std::vector<const GlobalVar*>& existing) {
  if (existing.empty()) return;
  Module fresh(mod.shared_arena());
  fresh.CopyTypeDefinitionsFrom(mod);  // TVM keeps the module's type definitions
  absl::flat_hash_map<const GlobalVar*, const GlobalVar*> renamed;
  for (const GlobalVar* gv : existing) {
    std::string name = SanitizeName(fmt::format("{}_{}", prefix, gv->name()));
    renamed[gv] = fresh.GetGlobalVar(FreshGlobalName(mod, name));
  }
  for (const auto& [gv, fn] : mod.Functions()) {
    GlobalRenamer renamer(mod.arena(), renamed);
    const Function* updated = Cast<Function>(renamer.Mutate(fn));
    auto it = renamed.find(gv);
    if (it == renamed.end()) {
      fresh.Add(gv, updated);
      continue;
    }
    IRBuilder b(mod.arena());
    const Attrs* attrs =
        WithAttr(updated->attrs(), attr::kGlobalSymbol, AttrValue::Str(it->second->name()));
    fresh.Add(it->second, b.MakeFunction(updated->params(), updated->body(), updated->ret_type(),
                                         attrs, updated->type_params(), updated->span(),
                                         updated->virtual_device()));
  }
  mod = std::move(fresh);
}

// The whole pass on `mod`.
absl::StatusOr<bool> PartitionModule(Module& mod, const PartitionGraphOptions& options,
                                     PassContext& ctx) {
  bool input_annotated = ctx.input_annotated();
  CARVE_ASSIGN_OR_RETURN(std::string prefix, MangleModuleName(options.mod_name));
  bool changed = false;
  bool hooked = false;
  std::vector<const GlobalVar*> existing;
  for (const auto& [gv, fn] : mod.Functions()) {
    if (fn->HasAttr(attr::kCompiler)) existing.push_back(gv);
  }
  for (const auto& [gv, original] : mod.Functions()) {
    // The preparation steps run first (FlattenNestedTuples,
    // RemoveDefaultAnnotations), as in TVM's Sequential, and the regions are
    // those of the prepared function. A region set already cached for the
    // function shows when they would change nothing; without one, preparing
    // first builds the set once (of the function partitioned) instead of
    // once to ask and once more after the change.
    const Function* fn = original;
    const AnnotatedRegionSet* cached = ctx.analyses().GetCached<AnnotatedRegionSet>(mod, fn);
    if (cached == nullptr || cached->needs_partition_prep()) {
      fn = PrepareFunctionForPartitioning(original, mod.arena());
      if (fn != original) {
        mod.Add(gv, fn);
        changed = true;
      }
    }
    absl::StatusOr<const AnnotatedRegionSet*> set = AnnotatedRegionSet::Get(ctx.analyses(), mod, fn);
    CARVE_RETURN_IF_ERROR(set.status());
    if ((*set)->size() == 0) continue;
    // Regions that depend on each other are reported first, as TVM fails
    // on them.
    if (std::optional<std::string> cycle = FindRegionCycle(**set, fn)) {
      return absl::FailedPreconditionError(
          fmt::format("PartitionGraph: in @{}, annotated regions depend on each other: {}",
                      gv->name(), *cycle));
    }
    Partitioner partitioner(mod, **set, gv->name(), prefix, options.bind_constants);
    absl::StatusOr<const Function*> updated = partitioner.Run(fn);
    CARVE_RETURN_IF_ERROR(updated.status());
    partitioner.Commit();
    mod.Add(gv, *updated);
    changed = true;
    hooked = hooked || partitioner.hooked();
  }
  MangleExistingExternalFunctions(mod, prefix, existing);
  changed |= !existing.empty();
  // TVM re-types the module after every region. Every node built here is
  // typed and every function annotated, so only a hook's rewrite needs it.
  if (hooked || !input_annotated) CARVE_RETURN_IF_ERROR(RetypeIfNeeded(mod).status());
  return changed;
}

}  // namespace

PassPtr PartitionGraph(PartitionGraphOptions options) {
  std::string description =
      fmt::format("PartitionGraph(mod_name={},bind_constants={})", options.mod_name,
                  options.bind_constants ? "True" : "False");
  return MakeModulePass("PartitionGraph", description,
                        [options](Module& mod, PassContext& ctx) -> absl::StatusOr<bool> {
                          absl::StatusOr<bool> changed = PartitionModule(mod, options, ctx);
                          ctx.set_output_annotated();
                          return changed;
                        });
}

}  // namespace carve
