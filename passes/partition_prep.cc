// The preparation steps of PartitionGraph (FlattenNestedTuples,
// RemoveDefaultAnnotations) and its naming rules.
#include <cctype>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "passes/annotation.h"
#include "passes/partition_graph.h"
#include "passes/rewrite_util.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// compiler_end(tuple(f...)) -> tuple(compiler_end(f)...), one level.
class TupleOutputFlattener : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (!IsCompilerEnd(e)) return post;
    const Tuple* tuple = DynCast<Tuple>(Cast<Call>(post)->args()[0]);
    if (tuple == nullptr) return post;
    std::string_view target = AnnotationTarget(e);
    std::vector<const Expr*> fields;
    for (const Expr* f : tuple->fields()) fields.push_back(MakeCompilerEnd(builder(), f, target));
    const Tuple* out = builder().MakeTuple(fields, tuple->span());
    out->set_checked_type(tuple->checked_type());
    return out;
  }
};

// Drops every annotation of the `default` target.
class DefaultAnnotationRemover : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (IsCompilerAnnotation(e) && AnnotationTarget(e) == kDefaultTarget) {
      return Cast<Call>(post)->args()[0];
    }
    return post;
  }
};

// Both steps in one walk (PartitionGraph runs them back to back): a default
// end of a tuple becomes a fresh tuple of the fields, as flattening and
// then removing would leave it.
class PartitionPrep : public TypedMutator {
 public:
  using TypedMutator::TypedMutator;

 protected:
  const Expr* Rewrite(const Expr* e) override {
    const Expr* post = RebuildTyped(e);
    if (!IsCompilerAnnotation(e)) return post;
    const Expr* arg = Cast<Call>(post)->args()[0];
    const Tuple* tuple = IsCompilerEnd(e) ? DynCast<Tuple>(arg) : nullptr;
    bool is_default = AnnotationTarget(e) == kDefaultTarget;
    if (tuple == nullptr) return is_default ? arg : post;
    std::string_view target = AnnotationTarget(e);
    std::vector<const Expr*> fields;
    for (const Expr* f : tuple->fields()) {
      fields.push_back(is_default ? f : MakeCompilerEnd(builder(), f, target));
    }
    const Tuple* out = builder().MakeTuple(fields, tuple->span());
    out->set_checked_type(tuple->checked_type());
    return out;
  }
};

template <typename Mutator>
bool RewriteFunctions(Module& mod) {
  bool changed = false;
  for (const auto& [gv, fn] : mod.Functions()) {
    Mutator mutator(mod.arena());
    const Function* updated = Cast<Function>(mutator.Mutate(fn));
    if (updated != fn) {
      mod.Add(gv, updated);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

absl::StatusOr<std::string> MangleModuleName(std::string_view mod_name) {
  for (char c : mod_name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') {
      return absl::InvalidArgumentError(fmt::format(
          "PartitionGraph: mod_name '{}' contains invalid characters (only letters, digits and "
          "'_' are allowed)",
          mod_name));
    }
  }
  return mod_name.empty() ? std::string("tvmgen") : fmt::format("tvmgen_{}", mod_name);
}

std::string SanitizeName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return out;
}

absl::StatusOr<bool> FlattenNestedTuples(Module& mod) {
  return RewriteFunctions<TupleOutputFlattener>(mod);
}

absl::StatusOr<bool> RemoveDefaultAnnotations(Module& mod) {
  return RewriteFunctions<DefaultAnnotationRemover>(mod);
}

absl::StatusOr<bool> PrepareForPartitioning(Module& mod) {
  return RewriteFunctions<PartitionPrep>(mod);
}

const Function* PrepareFunctionForPartitioning(const Function* fn, Arena* arena) {
  PartitionPrep prep(arena);
  return Cast<Function>(prep.Mutate(fn));
}

PassPtr FlattenNestedTuplesPass() {
  return MakeModulePass("FlattenNestedTuples", "",
                        [](Module& mod, PassContext&) { return FlattenNestedTuples(mod); });
}

PassPtr RemoveDefaultAnnotationsPass() {
  return MakeModulePass("RemoveDefaultAnnotations", "",
                        [](Module& mod, PassContext&) { return RemoveDefaultAnnotations(mod); });
}

}  // namespace carve
