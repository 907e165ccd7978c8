// Rewrite templates: the right-hand side of a `.pat` rule, an expression in
// Relay syntax over the captures of the left-hand side:
//
//   rule add_to_bias_add = add(nn.conv2d(_, _) as ?c, ?b) => nn.bias_add(?c, ?b);
//
// A template is data (built by the DSL parser, or in C++); TemplateRewrite
// turns it into a RewriteCallback that instantiates it at each match.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/expr.h"
#include "patterns/rewrite.h"

namespace carve {

class Template {
 public:
  enum class Kind : uint8_t { kCapture, kCall, kTuple, kTupleGetItem, kConstant };

  // The rebuilt expression captured as `name`.
  static std::shared_ptr<const Template> CaptureRef(std::string name);
  // `op(args..., attrs...)`: attrs override the op's defaults (values are
  // converted to the field types of the op's schema when instantiated).
  static std::shared_ptr<const Template> OpCall(const OpInfo* op,
                                                std::vector<std::shared_ptr<const Template>> args,
                                                std::vector<AttrEntry> attrs);
  static std::shared_ptr<const Template> MakeTuple(
      std::vector<std::shared_ptr<const Template>> fields);
  static std::shared_ptr<const Template> GetItem(std::shared_ptr<const Template> tuple, int index);
  // A constant; `keep_alive` owns its arena.
  static std::shared_ptr<const Template> ConstantOf(const Constant* value,
                                                    std::shared_ptr<const void> keep_alive);

  Kind kind() const { return kind_; }
  const std::string& capture() const { return capture_; }
  const OpInfo* op() const { return op_; }
  const std::vector<std::shared_ptr<const Template>>& operands() const { return operands_; }
  const std::vector<AttrEntry>& attrs() const { return attrs_; }
  int index() const { return index_; }
  const Constant* constant() const { return constant_; }

  // Capture names used, in order of appearance (duplicates kept).
  std::vector<std::string> Captures() const;

 private:
  explicit Template(Kind kind) : kind_(kind) {}
  Kind kind_;
  std::string capture_;
  const OpInfo* op_ = nullptr;
  std::vector<std::shared_ptr<const Template>> operands_;
  std::vector<AttrEntry> attrs_;
  int index_ = 0;
  const Constant* constant_ = nullptr;
  std::shared_ptr<const void> keep_alive_;
};

// Builds the expression of `t` at a match. Errors: an unbound capture, an
// attribute value that does not fit its field.
absl::StatusOr<const Expr*> InstantiateTemplate(const Template& t, const RewriteContext& ctx);

// A rewrite callback instantiating `t`.
RewriteCallback TemplateRewrite(std::shared_ptr<const Template> t);

// Converts an attribute value written in a pattern or template to the type
// of `field` (1 -> 1.0 for doubles, 0/1 -> bools, ...); errors name the field.
absl::StatusOr<AttrValue> CoerceAttrValue(const AttrField& field, const AttrValue& value);

}  // namespace carve
