// Attribute comparisons for patterns and predicates, with TVM's matcher
// semantics where the matcher uses them (CallAttrMatches, below). `where`
// clauses use AttrValueMatches: numbers compare by value
// whatever their width or kind (1 == 1i64 == True == 1.0), strings by
// content, arrays element by element with the same rules, None only with
// None. Dtype-valued fields are stored as strings, so `dtype="float32"`
// matches them as TVM's DataType-as-string comparison does.
#pragma once

#include <optional>
#include <string_view>

#include "ir/attrs.h"
#include "ir/expr.h"
#include "ir/op.h"

namespace carve {

// True when `actual` equals the pattern value `expected` (the lenient
// comparison of `where` clauses).
bool AttrValueMatches(const AttrValue& expected, const AttrValue& actual);

// TVM's MatchRetValue, for has_attr on calls and op attr maps: the kind of
// the actual value decides. An int (or bool) field matches an int pattern
// value of any width (not 1.0); a double field only a float pattern value
// (not 0); a string (or dtype) field a string; an array field is compared
// structurally (AttrValuesStructurallyEqual).
bool CallAttrMatches(const AttrValue& expected, const AttrValue& actual);

// TVM's StructuralEqual over attribute values, for function attrs and
// array-valued call attrs: same kind, ints of the same width (3 != 3i64),
// arrays element by element.
bool AttrValuesStructurallyEqual(const AttrValue& a, const AttrValue& b);

// Three-way comparison for `<`, `<=`, ...: negative, zero or positive; nullopt
// when the values are not ordered (different kinds, arrays, None).
std::optional<int> CompareAttrValues(const AttrValue& a, const AttrValue& b);

// An op's entry in one of TVM's op attr maps, as carve's registry knows it:
// "TOpPattern" (int, TVM's OpPatternKind), "TOpIsStateful" and
// "TNonComputational" (bools). nullopt for unknown maps and for ops the map
// does not contain (TOpPattern of layer_norm).
std::optional<AttrValue> OpAttrMapValue(const OpInfo& op, std::string_view key);

// The attribute `key` of a node: a call's attrs, a function's attrs, or an
// op's attr map. nullopt when the node has no such attribute.
std::optional<AttrValue> NodeAttr(const Expr* node, std::string_view key);

}  // namespace carve
