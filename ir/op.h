// The operator registry: one OpInfo per Relay operator, generated from the
// table in ir/ops.def. Every fact about an op (arity, attribute schema, type
// relation, commutativity, fusion pattern) lives here; nothing else in carve
// tests op names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/attrs.h"
#include "ir/type.h"

namespace carve {

struct OpInfo;

// TVM's TOpPattern.
enum class OpPattern : uint8_t {
  kElemWise = 0,
  kBroadcast = 1,
  kInjective = 2,
  kCommReduce = 3,
  kOutEWiseFusable = 4,
  kTuple = 7,
  kOpaque = 8,
  kNone = 255,  // no pattern registered (layer_norm, instance_norm)
};

// Flags.
enum OpFlag : uint32_t {
  kOpCommutative = 1u << 0,     // f(a, b) == f(b, a)
  kOpStateful = 1u << 1,        // TOpIsStateful (dropout)
  kOpNonComputational = 1u << 2,  // TNonComputational (qnn ops, annotations)
  kOpAnnotation = 1u << 3,      // annotation.* ops
};

// What a type relation sees: the call's argument types (all resolved) and
// its attributes (a schema instance, never null for ops with a schema).
struct TypeRelCall {
  const OpInfo* op;
  std::span<const Type* const> args;
  const Attrs* attrs;
};

// Computes the output type of a call, or fails with a message that names the
// problem without the op name ("cannot broadcast (1, 3) and (4,)"); the
// caller prefixes the op name and attaches the call's span.
using TypeRelation = absl::StatusOr<const Type*> (*)(const TypeRelCall& call);

struct OpInfo {
  std::string_view name;
  int num_inputs = 1;  // -1: any number
  std::vector<std::string_view> arg_names;
  // The attrs type calls of this op carry; nullptr for ops without attrs.
  const AttrsSchema* attrs = nullptr;
  // The type key of `attrs` ("relay.attrs.Conv2DAttrs"); "" for ops without
  // attrs.
  std::string_view attrs_type_key;
  // False when TVM registers no attrs type for the op although its calls
  // carry attrs (annotation.compiler_begin/end): TVM's printer writes those
  // as meta[...] references.
  bool attrs_type_registered = true;
  TypeRelation type_rel = nullptr;
  OpPattern pattern = OpPattern::kOpaque;
  int support_level = 1;
  uint32_t flags = 0;

  bool commutative() const { return flags & kOpCommutative; }
};

// The op called `name`, or nullptr.
const OpInfo* FindOp(std::string_view name);
// The registered op whose name is closest to `name` (edit distance), for
// "did you mean" messages; nullptr when nothing is reasonably close.
const OpInfo* NearestOp(std::string_view name);
// Every registered op, sorted by name.
std::span<const OpInfo* const> AllOps();
// The schema registered under a type key ("relay.attrs.Conv2DAttrs"), or
// nullptr.
const AttrsSchema* FindAttrsSchema(std::string_view type_key);

// "unknown operator 'nn.conv2' (did you mean 'nn.conv2d'?)".
std::string UnknownOpMessage(std::string_view name);

}  // namespace carve
