#include "ir/adt.h"

#include <vector>

namespace carve {

static_assert(sizeof(Constructor) >= kMinNodeAllocation && sizeof(Match) >= kMinNodeAllocation);

const Constructor* MakeConstructor(Arena* arena, std::string_view name,
                                   std::span<const Type* const> inputs,
                                   const GlobalTypeVar* belongs_to, int32_t tag, Span span) {
  return arena->New<Constructor>(arena->CopyString(name), arena->CopyArray(inputs), belongs_to,
                                 tag, span);
}

const TypeData* MakeTypeData(Arena* arena, const GlobalTypeVar* header,
                             std::span<const TypeVar* const> type_vars,
                             std::span<const Constructor* const> constructors, Span span) {
  return arena->New<TypeData>(header, arena->CopyArray(type_vars),
                              arena->CopyArray(constructors), span);
}

const AdtPattern* MakePattern(Arena* arena, const AdtPattern& pattern) {
  switch (pattern.kind()) {
    case AdtPattern::Kind::kWildcard:
    case AdtPattern::Kind::kVar:
      return arena->New<AdtPattern>(pattern);
    case AdtPattern::Kind::kConstructor:
      return arena->New<AdtPattern>(
          AdtPattern::Of(pattern.constructor(), arena->CopyArray(pattern.fields())));
    case AdtPattern::Kind::kTuple:
      return arena->New<AdtPattern>(AdtPattern::TupleOf(arena->CopyArray(pattern.fields())));
  }
  return nullptr;
}

const Match* MakeMatch(Arena* arena, const Expr* data, std::span<const Clause> clauses,
                       bool complete, Span span) {
  return arena->New<Match>(data, arena->CopyArray(clauses), complete, span);
}

const Type* ConstructorResultType(const TypeData& data) {
  std::vector<const Type*> args(data.type_vars().begin(), data.type_vars().end());
  return TypeCallTy(data.header(), args);
}

const FuncType* ConstructorType(const TypeData& data, const Constructor& ctor) {
  return FuncTy(ctor.inputs(), ConstructorResultType(data), data.type_vars());
}

}  // namespace carve
