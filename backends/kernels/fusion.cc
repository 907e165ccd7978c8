#include "backends/kernels/fusion.h"

#include <algorithm>
#include <span>
#include <string_view>

#include "backends/json/attr_codec.h"
#include "backends/json/composite_body.h"
#include "fmt/format.h"
#include "ir/op.h"
#include "ir/op_rules.h"
#include "support/status_macros.h"

namespace carve {
namespace {

// A multi-op activation as the label spells it, with the number of constant
// leaves it reads.
struct ActivationForm {
  Activation kind;
  std::vector<std::string_view> ops;
  size_t scalars;
};

const std::vector<ActivationForm>& ActivationForms() {
  static const auto* forms = new std::vector<ActivationForm>{
      {Activation::kGeluErf, {"divide", "erf", "add", "multiply", "multiply"}, 3},
      {Activation::kGeluTanh,
       {"power", "multiply", "add", "multiply", "tanh", "add", "multiply", "multiply"}, 5},
      {Activation::kMish, {"exp", "add", "log", "tanh", "multiply"}, 1},
      {Activation::kSwish, {"sigmoid", "multiply"}, 0},
      {Activation::kRelu, {"nn.relu"}, 0},
      {Activation::kSigmoid, {"sigmoid"}, 0},
      {Activation::kTanh, {"tanh"}, 0},
      {Activation::kClip, {"clip"}, 0},
  };
  return *forms;
}

bool StartsWith(std::span<const std::string> ops, size_t at, const std::vector<std::string_view>& form) {
  if (at + form.size() > ops.size()) return false;
  for (size_t k = 0; k < form.size(); ++k) {
    if (ops[at + k] != form[k]) return false;
  }
  return true;
}

// The anchor is the first op that is not elementwise / broadcast /
// injective, as for the serializer's CompositeAnchor.
bool IsAnchorOp(const OpInfo* op) { return op != nullptr && op->pattern > OpPattern::kInjective; }

// Walks the body entries of a composite (composite_body.h), which are in
// label order, and checks each against the chain shape: a post-op reads the
// previous entry and fresh inputs; a multi-op activation reads nothing from
// before the value it starts from.
class Decoder {
 public:
  Decoder(const JsonNode& node, std::vector<BodyEntry> body) : node_(node), body_(std::move(body)) {
    for (const BodyEntry& e : body_) ops_.push_back(e.head);
  }

  absl::StatusOr<FusionSpec> Run() {
    if (at_ < ops_.size() && LayoutRuleOf(*FindOp(ops_[at_])) == LayoutRule::kPad) {
      spec_.pad_op = ops_[at_];
      spec_.data = Take();
      spec_.pad_value = Take();
      CARVE_RETURN_IF_ERROR(CheckEntry(at_, /*chained=*/false, 0));
      ++at_;
      padded_ = true;
    }
    CARVE_RETURN_IF_ERROR(DecodeAnchor());
    while (at_ < ops_.size()) CARVE_RETURN_IF_ERROR(DecodePostOp());
    if (leaf_ != node_.inputs.size()) {
      return Error(fmt::format("the body accounts for {} inputs, the node has {}", leaf_,
                               node_.inputs.size()));
    }
    return spec_;
  }

 private:
  absl::Status DecodeAnchor() {
    if (at_ >= ops_.size()) return Error("no anchor op");
    const OpInfo* op = FindOp(ops_[at_]);
    if (!IsAnchorOp(op)) return Error(fmt::format("'{}' cannot anchor a fused kernel", ops_[at_]));
    spec_.anchor = ops_[at_];
    size_t first = leaf_;
    int arity = op->num_inputs;
    if (!padded_) spec_.data = Take();
    if (arity >= 2) spec_.weight = Take();
    for (int k = 2; k < arity; ++k) spec_.anchor_extra.push_back(Take());
    CARVE_RETURN_IF_ERROR(CheckEntry(at_, padded_, first));
    ++at_;
    return absl::OkStatus();
  }

  absl::Status DecodePostOp() {
    const std::string& op = ops_[at_];
    const OpInfo& info = *FindOp(op);  // DecodeFusion checked every head
    FusionRule rule = FusionRuleOf(info);
    bool activated = spec_.activation.kind != Activation::kNone;
    size_t first = leaf_;
    if (rule == FusionRule::kBias && !spec_.bias && !activated && !IsFormAt()) {
      spec_.bias = Take();
      spec_.bias_op = op;
      return Advance(first);
    }
    // A residual sum adds a whole tensor: a numpy-style bias op.
    if (rule == FusionRule::kBias && !BroadcastsAlongAxis(info) && spec_.bias && !spec_.sum &&
        !activated && !IsFormAt()) {
      spec_.sum = Take();
      return Advance(first);
    }
    if (rule == FusionRule::kRequantize && spec_.requantize.empty()) {
      for (int k = 0; k < 4; ++k) spec_.requantize.push_back(Take());
      return Advance(first);
    }
    if (!activated && spec_.requantize.empty()) {
      for (const ActivationForm& form : ActivationForms()) {
        if (!StartsWith(ops_, at_, form.ops)) continue;
        spec_.activation.kind = form.kind;
        for (size_t k = 0; k < form.scalars; ++k) spec_.activation.scalars.push_back(Take());
        CARVE_RETURN_IF_ERROR(CheckForm(at_, form.ops.size(), first));
        at_ += form.ops.size();
        if (form.kind == Activation::kClip) return ReadClipBounds();
        return absl::OkStatus();
      }
    }
    return Error(fmt::format("'{}' does not fit a fused chain here", op));
  }

  absl::Status Advance(size_t first) {
    CARVE_RETURN_IF_ERROR(CheckEntry(at_, /*chained=*/true, first));
    ++at_;
    return absl::OkStatus();
  }

  // Entry `i` reads the previous entry once (when chained) and the inputs
  // taken since `first`, in any argument order (commutative ops).
  absl::Status CheckEntry(size_t i, bool chained, size_t first) const {
    std::vector<BodyRef> expected;
    if (chained) expected.push_back({false, i - 1});
    for (size_t k = first; k < leaf_; ++k) expected.push_back({true, k});
    std::vector<BodyRef> got = body_[i].args;
    auto less = [](const BodyRef& a, const BodyRef& b) {
      return std::pair(a.is_input, a.index) < std::pair(b.is_input, b.index);
    };
    std::sort(expected.begin(), expected.end(), less);
    std::sort(got.begin(), got.end(), less);
    if (got != expected) return Error(fmt::format("'{}' is not a link of a chain", body_[i].head));
    return absl::OkStatus();
  }

  // A multi-op form over entries [i, i + n) reads only the value before it,
  // its own entries and the inputs taken since `first`.
  absl::Status CheckForm(size_t i, size_t n, size_t first) const {
    for (size_t k = i; k < i + n; ++k) {
      for (const BodyRef& r : body_[k].args) {
        bool ok = r.is_input ? r.index >= first && r.index < leaf_ : r.index + 1 >= i && r.index < k;
        if (!ok) return Error(fmt::format("'{}' reads outside its activation", body_[k].head));
      }
    }
    return absl::OkStatus();
  }

  // True when a multi-op activation starts at the current op.
  bool IsFormAt() const {
    for (const ActivationForm& form : ActivationForms()) {
      if (form.ops.size() > 1 && StartsWith(ops_, at_, form.ops)) return true;
    }
    return false;
  }

  absl::Status ReadClipBounds() {
    CARVE_ASSIGN_OR_RETURN(spec_.activation.lo, NodeFloat(node_, "clip.a_min"));
    CARVE_ASSIGN_OR_RETURN(spec_.activation.hi, NodeFloat(node_, "clip.a_max"));
    return absl::OkStatus();
  }

  size_t Take() { return leaf_++; }

  absl::Status Error(std::string why) const {
    return absl::InvalidArgumentError(fmt::format("composite '{}': {}", node_.name, why));
  }

  const JsonNode& node_;
  std::vector<BodyEntry> body_;
  std::vector<std::string> ops_;
  FusionSpec spec_;
  size_t at_ = 0;
  size_t leaf_ = 0;
  bool padded_ = false;
};

int64_t ChannelOf(std::string_view layout) {
  size_t c = layout.find('C');
  return c == std::string_view::npos ? -1 : static_cast<int64_t>(c);
}

}  // namespace

std::string_view ActivationName(Activation a) {
  switch (a) {
    case Activation::kNone: return "none";
    case Activation::kRelu: return "relu";
    case Activation::kSigmoid: return "sigmoid";
    case Activation::kTanh: return "tanh";
    case Activation::kClip: return "clip";
    case Activation::kGeluErf: return "gelu_erf";
    case Activation::kGeluTanh: return "gelu_tanh";
    case Activation::kSwish: return "swish";
    case Activation::kMish: return "mish";
  }
  return "?";
}

bool BiasAlongAxisAttr(const FusionSpec& spec) {
  const OpInfo* op = FindOp(spec.bias_op);
  return op != nullptr && BroadcastsAlongAxis(*op);
}

absl::StatusOr<FusionSpec> DecodeFusion(const JsonNode& node) {
  CARVE_ASSIGN_OR_RETURN(std::vector<BodyEntry> body, ParseCompositeBody(node));
  for (const BodyEntry& e : body) {
    if (FindOp(e.head) == nullptr) {
      return absl::InvalidArgumentError(fmt::format(
          "composite '{}': a '{}' node cannot be part of a fused chain", node.name, e.head));
    }
  }
  return Decoder(node, std::move(body)).Run();
}

absl::StatusOr<int64_t> OutputChannelAxis(const JsonNode& node, const FusionSpec& spec) {
  const OpInfo* anchor = FindOp(spec.anchor);
  if (anchor != nullptr && FusionRuleOf(*anchor) == FusionRule::kMatmul) {
    return static_cast<int64_t>(node.shapes[0].size()) - 1;
  }
  for (std::string_view key : {"out_layout", "data_layout", "layout"}) {
    const std::vector<std::string>* v = node.FindAttr(key);
    if (v != nullptr && v->size() == 1 && !(*v)[0].empty()) {
      int64_t c = ChannelOf((*v)[0]);
      if (c >= 0) return c;
    }
  }
  return absl::InvalidArgumentError(
      fmt::format("composite '{}': cannot tell the channel axis of '{}'", node.name, spec.anchor));
}

bool BiasPerChannel(const JsonNode& node, const FusionSpec& spec,
                    const std::vector<int64_t>& bias_shape, int64_t axis) {
  const size_t rank = node.shapes.empty() ? 0 : node.shapes[0].size();
  if (BiasAlongAxisAttr(spec)) {
    int64_t bias_axis = NodeInt(node, fmt::format("{}.axis", spec.bias_op)).value_or(1);
    if (bias_axis < 0) bias_axis += int64_t(rank);
    return bias_axis == axis && bias_shape.size() == 1;
  }
  if (bias_shape.size() > rank) return false;
  size_t offset = rank - bias_shape.size();
  for (size_t i = 0; i < bias_shape.size(); ++i) {
    if (int64_t(i + offset) != axis && bias_shape[i] != 1) return false;
  }
  return true;
}

}  // namespace carve
