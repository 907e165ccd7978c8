// Typing of algebraic data types, as TVM v0.16's type_infer.cc has it:
//   - a constructor has the type `fn [T...](fields) -> Data[T...]` of its
//     definition (its calls instantiate T with fresh holes, as for any
//     polymorphic function);
//   - `match`: each pattern is unified with the scrutinee's type (a
//     constructor pattern with `Data[_...]`, its fields with the
//     constructor's field types at those arguments; a tuple pattern with a
//     tuple of holes; a variable takes the type, or must agree with its
//     annotation), the clauses' right-hand sides unify into the match's
//     type, and a complete `match` must cover every value (TVM's
//     UnmatchedCases, analysis/match_exhaustion.cc).
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"
#include "passes/infer/infer_expr.h"

namespace carve {
namespace {

// A candidate value shape of the exhaustiveness check.
struct Candidate {
  enum class Kind : uint8_t { kWildcard, kConstructor, kTuple };
  Kind kind = Kind::kWildcard;
  const Constructor* ctor = nullptr;
  std::vector<Candidate> fields;
};

enum class CheckResult : uint8_t { kMatch, kClash, kUnspecified };

bool SameConstructor(const Constructor* a, const Constructor* b) {
  return a == b || (a->name() == b->name() && a->belongs_to() == b->belongs_to());
}

CheckResult Check(const AdtPattern* pattern, const Candidate& cand) {
  using PK = AdtPattern::Kind;
  if (pattern->kind() == PK::kWildcard || pattern->kind() == PK::kVar) return CheckResult::kMatch;
  const bool is_ctor = pattern->kind() == PK::kConstructor;
  if (cand.kind != (is_ctor ? Candidate::Kind::kConstructor : Candidate::Kind::kTuple)) {
    return CheckResult::kUnspecified;
  }
  if (is_ctor && !SameConstructor(pattern->constructor(), cand.ctor)) return CheckResult::kClash;
  if (pattern->fields().size() != cand.fields.size()) return CheckResult::kClash;
  bool unspecified = false;
  for (size_t i = 0; i < cand.fields.size(); ++i) {
    CheckResult sub = Check(pattern->fields()[i], cand.fields[i]);
    if (sub == CheckResult::kClash) return sub;
    unspecified = unspecified || sub == CheckResult::kUnspecified;
  }
  return unspecified ? CheckResult::kUnspecified : CheckResult::kMatch;
}

std::vector<std::vector<Candidate>> CartesianProduct(
    const std::vector<std::vector<Candidate>>& fields) {
  std::vector<std::vector<Candidate>> out = {{}};
  for (const std::vector<Candidate>& values : fields) {
    std::vector<std::vector<Candidate>> next;
    for (const std::vector<Candidate>& prefix : out) {
      for (const Candidate& v : values) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    out = std::move(next);
  }
  return out;
}

// TVM's ExpandWildcards: the candidates `cand` splits into, specified as far
// as `pattern` asks.
std::vector<Candidate> Expand(const AdtPattern* pattern, const Candidate& cand,
                              const Module& mod) {
  using PK = AdtPattern::Kind;
  if (pattern->kind() != PK::kConstructor && pattern->kind() != PK::kTuple) return {cand};
  if (cand.kind == Candidate::Kind::kWildcard) {
    std::vector<Candidate> out;
    if (pattern->kind() == PK::kTuple) {
      Candidate tuple{Candidate::Kind::kTuple, nullptr, {}};
      tuple.fields.resize(pattern->fields().size());
      out.push_back(std::move(tuple));
      return out;
    }
    const TypeData* data = mod.LookupTypeDefinition(pattern->constructor()->belongs_to()->name());
    if (data == nullptr) return out;
    for (const Constructor* ctor : data->constructors()) {
      Candidate c{Candidate::Kind::kConstructor, ctor, {}};
      c.fields.resize(ctor->inputs().size());
      out.push_back(std::move(c));
    }
    return out;
  }
  std::vector<std::vector<Candidate>> by_field;
  for (size_t i = 0; i < cand.fields.size(); ++i) {
    by_field.push_back(Expand(pattern->fields()[i], cand.fields[i], mod));
  }
  std::vector<Candidate> out;
  for (std::vector<Candidate>& fields : CartesianProduct(by_field)) {
    out.push_back(Candidate{cand.kind, cand.ctor, std::move(fields)});
  }
  return out;
}

std::string CandidateText(const Candidate& cand) {
  if (cand.kind == Candidate::Kind::kWildcard) return "_";
  std::string out = cand.kind == Candidate::Kind::kConstructor ? std::string(cand.ctor->name()) : "";
  if (cand.kind == Candidate::Kind::kConstructor && cand.fields.empty()) return out;
  out += "(";
  for (size_t i = 0; i < cand.fields.size(); ++i) {
    if (i > 0) out += ", ";
    out += CandidateText(cand.fields[i]);
  }
  return out + ")";
}

// Beyond this many candidates the check gives up (TVM's has no bound; the
// number can grow exponentially with the nesting of the patterns).
constexpr size_t kMaxCandidates = 100000;

}  // namespace

const TypeData* ExprTyper::DataTypeOf(const Constructor* ctor) {
  if (globals_.module == nullptr) return nullptr;
  return globals_.module->LookupTypeDefinition(ctor->belongs_to()->name());
}

const Type* ExprTyper::TypeConstructor(const Constructor* ctor) {
  const TypeData* data = DataTypeOf(ctor);
  if (data == nullptr) {
    return Error(ctor->span(), fmt::format("constructor {} cannot be typed without the module "
                                           "that defines type {}",
                                           ctor->name(), ctor->belongs_to()->name()));
  }
  return ConstructorType(*data, *ctor);
}

void ExprTyper::StepMatch(Frame& frame) {
  auto* match = Cast<Match>(frame.e());
  switch (frame.Advance()) {
    case 0:
      return Push(match->data());
    case 1: {
      // The patterns bind their variables before the right-hand sides are
      // typed; the clauses are pushed last first, so typed in order.
      const Type* data = TypeOf(match->data());
      for (const Clause& clause : match->clauses()) TypePattern(clause.lhs, data, match);
      for (size_t k = match->clauses().size(); k-- > 0;) Push(match->clauses()[k].rhs);
      return;
    }
    default:
      return Done(match, TypeMatch(match));
  }
}

bool ExprTyper::TypePattern(const AdtPattern* pattern, const Type* t, const Match* match) {
  switch (pattern->kind()) {
    case AdtPattern::Kind::kWildcard:
      return true;
    case AdtPattern::Kind::kVar:
      return TypeVarPattern(pattern->var(), t);
    case AdtPattern::Kind::kConstructor:
      return TypeConstructorPattern(pattern, t, match);
    case AdtPattern::Kind::kTuple:
      return TypeTuplePattern(pattern, t, match);
  }
  return false;
}

bool ExprTyper::TypeVarPattern(const Var* var, const Type* t) {
  met_unannotated_ = met_unannotated_ || var->annotation() == nullptr;
  binders_.push_back(Binder{var, false});
  if (var->annotation() == nullptr) {
    SetType(var, t);
    return true;
  }
  SetType(var, var->annotation());
  if (unifier_.Unify(var->annotation(), t) != nullptr) return true;
  Error(var->span(), fmt::format("match: %{} is annotated {} but the value it binds has type {}",
                                 var->name(), Show(var->annotation()), Show(t)));
  return false;
}

bool ExprTyper::TypeConstructorPattern(const AdtPattern* pattern, const Type* t,
                                       const Match* match) {
  const Constructor* ctor = pattern->constructor();
  const TypeData* data = DataTypeOf(ctor);
  if (data == nullptr) {
    TypeConstructor(ctor);  // reports it
    return false;
  }
  absl::flat_hash_map<const Type*, const Type*> args;
  std::vector<const Type*> holes;
  for (const TypeVar* tv : data->type_vars()) {
    holes.push_back(unifier_.NewHole());
    args.emplace(tv, holes.back());
  }
  const Type* expected = TypeCallTy(data->header(), holes);
  if (unifier_.Unify(t, expected) == nullptr) {
    Error(match->span(), fmt::format("match: pattern {} expects a value of type {}, got {}",
                                     ctor->name(), data->header()->name(), Show(t)));
    return false;
  }
  if (pattern->fields().size() != ctor->inputs().size()) {
    Error(match->span(), fmt::format("match: constructor {} has {} field{}, the pattern {}",
                                     ctor->name(), ctor->inputs().size(),
                                     ctor->inputs().size() == 1 ? "" : "s",
                                     pattern->fields().size()));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < pattern->fields().size(); ++i) {
    ok = TypePattern(pattern->fields()[i], unifier_.Substitute(ctor->inputs()[i], args), match) &&
         ok;
  }
  return ok;
}

bool ExprTyper::TypeTuplePattern(const AdtPattern* pattern, const Type* t, const Match* match) {
  std::vector<const Type*> fields;
  for (size_t i = 0; i < pattern->fields().size(); ++i) fields.push_back(unifier_.NewHole());
  if (unifier_.Unify(t, TupleTy(fields)) == nullptr) {
    Error(match->span(), fmt::format("match: a pattern of {} fields cannot match type {}",
                                     fields.size(), Show(t)));
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < fields.size(); ++i) {
    ok = TypePattern(pattern->fields()[i], fields[i], match) && ok;
  }
  return ok;
}

const Type* ExprTyper::TypeMatch(const Match* match) {
  const Type* result = unifier_.NewHole();
  for (const Clause& clause : match->clauses()) {
    const Type* rhs = TypeOf(clause.rhs);
    const Type* expected = unifier_.Resolve(result);
    const Type* unified = unifier_.Unify(result, rhs);
    if (unified == nullptr) {
      return Error(clause.rhs->span(),
                   fmt::format("match: clauses have different types: {} and {}",
                               TypeToString(expected), Show(rhs)));
    }
    result = unified;
  }
  if (match->complete()) CheckExhaustive(match);
  return result;
}

void ExprTyper::CheckExhaustive(const Match* match) {
  if (globals_.module == nullptr) return;  // constructors were reported already
  const Module& mod = *globals_.module;
  std::vector<Candidate> candidates = {Candidate{}};
  std::vector<Candidate> failures;
  size_t seen = 0;
  while (!candidates.empty()) {
    if (++seen > kMaxCandidates) {
      Error(match->span(), "match: too many cases to check that the match is complete");
      return;
    }
    Candidate cand = std::move(candidates.back());
    candidates.pop_back();
    bool failure = true;
    for (const Clause& clause : match->clauses()) {
      CheckResult r = Check(clause.lhs, cand);
      if (r == CheckResult::kClash) continue;
      failure = false;
      if (r == CheckResult::kUnspecified) {
        for (Candidate& c : Expand(clause.lhs, cand, mod)) candidates.push_back(std::move(c));
      }
      break;
    }
    if (failure) failures.push_back(std::move(cand));
  }
  if (failures.empty()) return;
  std::string cases;
  for (size_t i = 0; i < failures.size(); ++i) {
    if (i > 0) cases += ", ";
    cases += CandidateText(failures[i]);
  }
  Error(match->span(),
        fmt::format("match expression does not handle the following cases: {} (use `match?` "
                    "for a match that may fail)",
                    cases));
}

}  // namespace carve
