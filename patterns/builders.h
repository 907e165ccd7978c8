// C++ builders for patterns, with TVM's vocabulary (python/tvm/relay/
// dataflow_pattern and the C++ mirrors in dataflow_pattern.cc):
//
//   Pattern conv = IsOp("nn.conv2d")(Wildcard(), IsConstant());
//   Pattern bias = conv.Optional([](const Pattern& x) {
//     return IsOp("nn.bias_add")(x, Wildcard()); });
//   Pattern relu = IsOp("nn.relu")(bias).HasAttr({}) | bias;
//
// Builders never fail: an error (an unknown op) is carried by the returned
// pattern and reported by CompilePattern / Pattern::status() (see pattern.h).
#pragma once

#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "patterns/pattern.h"

namespace carve {

// Any expression.
Pattern Wildcard();
// The operator `name` (TVM `is_op`); an unknown name gives an invalid pattern
// whose error suggests the nearest registered op.
Pattern IsOp(std::string_view name);
Pattern IsOp(const OpInfo* op);
// An expression structurally equal to `expr` (vars by identity). The caller
// keeps `expr` alive (its module's arena) while the pattern is used.
Pattern IsExpr(const Expr* expr);
// Same, owning `keep_alive` (e.g. the arena of a pattern-made constant).
Pattern IsExpr(const Expr* expr, std::shared_ptr<const void> keep_alive);
// Any variable; with a name, only variables with that name hint.
Pattern IsVar(std::string_view name = "");
// Any constant.
Pattern IsConstant();
// A call of `callee` with args matched pairwise (same arity).
Pattern IsCall(Pattern callee, std::vector<Pattern> args);
// A call of `callee` with any args (TVM `p(None)`).
Pattern IsCallAnyArgs(Pattern callee);
// A tuple whose fields match pairwise.
Pattern IsTuple(std::vector<Pattern> fields);
// Any tuple (TVM `is_tuple(None)`).
Pattern IsAnyTuple();
// A projection of a matching tuple; index -1 (kAnyIndex) for any index.
Pattern IsTupleGetItem(Pattern tuple, int index = TupleGetItemPattern::kAnyIndex);
Pattern IsIf(Pattern cond, Pattern then_branch, Pattern else_branch);
Pattern IsLet(Pattern var, Pattern value, Pattern body);
// A function literal with params matched pairwise and a matching body.
Pattern IsFunction(std::vector<Pattern> params, Pattern body);
// A function literal with any params (TVM `FunctionPattern(None, body)`).
Pattern IsFunctionAnyParams(Pattern body);
// Ordered choice (same as `left | right`).
Pattern Alt(Pattern left, Pattern right);
// `p | f(p)`.
Pattern Optional(const Pattern& p, const std::function<Pattern(const Pattern&)>& f);
// Attribute, type, dtype and shape constraints on `inner` (default: any).
Pattern HasAttr(std::vector<AttrEntry> attrs, Pattern inner = Wildcard());
Pattern HasType(const Type* type, Pattern inner = Wildcard());
Pattern HasDType(DataType dtype, Pattern inner = Wildcard());
// "float32" etc.; an unknown dtype name gives an invalid pattern.
Pattern HasDType(std::string_view dtype, Pattern inner = Wildcard());
Pattern HasShape(std::vector<DimPattern> dims, Pattern inner = Wildcard());
// TVM `dominates(parent, path, child)`.
Pattern Dominates(Pattern parent, Pattern path, Pattern child);
// Binds `inner`'s match to `name` (`?name` in the DSL).
Pattern Capture(std::string_view name, Pattern inner = Wildcard());
// `inner` whose captures satisfy `predicate`.
Pattern Where(Pattern inner, std::shared_ptr<const Predicate> predicate);
// A recursive pattern: `body(self)` where `self` refers to the result, e.g.
//   Recursive("casts", [&](const Pattern& self) {
//     return IsOp("cast")(self | IsOp("nn.dense")(Wildcard(), Wildcard())); });
// The returned root owns the pattern; `self` refers to it weakly.
Pattern Recursive(std::string_view name, const std::function<Pattern(const Pattern&)>& body);
// An invalid pattern carrying `message` (for front ends).
Pattern InvalidPatternWithError(std::string message);

// TVM's arithmetic sugar: IsOp("add")(a, b) etc.
Pattern operator+(const Pattern& a, const Pattern& b);
Pattern operator-(const Pattern& a, const Pattern& b);
Pattern operator*(const Pattern& a, const Pattern& b);
Pattern operator/(const Pattern& a, const Pattern& b);

}  // namespace carve
