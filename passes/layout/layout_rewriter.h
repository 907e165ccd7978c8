// The layout rewriter behind ConvertLayout and AlterOpLayout (TVM v0.16
// src/relay/transforms/transform_layout.h): a forward rewrite in which each
// node's result is in its original layout or, "alternated", in a new one.
// An op's LayoutRule (ir/op_rules.h, the kind of TVM's FInferCorrectLayout
// registered for it) says what happens to it; each rule is a method here,
// defined in the file of its family:
//   conv_rules.cc    the convolutions (converted to the desired layout when
//                    listed, else their inputs go back to their layout)
//   follow_rules.cc  ops whose result follows an input's layout with no
//                    attribute to rewrite or only a layout attribute: unary
//                    elementwise ops, numpy-style broadcasts, pools, resize
//   axis_rules.cc    ops whose axis attributes are renumbered: concatenate,
//                    batch_norm, pad, reductions, transpose, strided_slice,
//                    split, squeeze, the norms, qnn.requantize
//   infer_rules.cc   upsampling, slice_like, topk (and vision.roi_align /
//                    roi_pool, whose layout is only noted)
// Any other consumer, and the function result, reads an alternated value
// through layout_transform(new -> old), one per value and direction (TVM's
// transform memo). A value whose layout a rule defines but does not change
// is "known": a broadcast partner of lower rank still takes its rank.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "passes/layout/convert_layout.h"
#include "passes/rewrite/rewrite_util.h"

namespace carve::layout {

// A value's layout before and after the rewrite (equal: known, unchanged).
struct Alt {
  std::string old_layout;
  std::string new_layout;
};

class LayoutRewriter : public TypedMutator {
 public:
  LayoutRewriter(Arena* arena, const DesiredLayout& desired);

  // Records the calls with a tuple result (batch_norm, split) that some
  // node other than a projection reads: they keep their layout. (topk's
  // result read whole is realized as TVM does, a tuple of its projections
  // each moved back: RealizeTuple.)
  void ScanTupleUses(const Expr* root);

 protected:
  const Expr* Rewrite(const Expr* e) override;

 private:
  // A call with a tuple result whose fields are in a new layout: all of
  // them (split) or field 0 only (batch_norm's data; its statistics are
  // per channel).
  struct TupleAlt {
    Alt alt;
    bool all_fields;
  };

  // --- the rewriter (layout_rewriter.cc) ---
  const Alt* FindAlt(const Expr* e) const;
  // Alternated (old -> new) or known (old == new); nullopt when no rule
  // defines e's layout.
  std::optional<Alt> FindLayout(const Expr* e) const;
  const Expr* RewriteField(const TupleGetItem* item);
  const Expr* MakeField(const Expr* tuple_call, int index, const Type* old_type, Span span);
  const Expr* RealizeTuple(const Expr* tuple_call);
  // nullptr: no layout rule applies (the caller realizes the inputs).
  const Expr* RewriteCall(const Call* call);
  bool TakesBlocked(const Call* call) const;
  bool ReadsBlocked(const Call* call) const;
  void NoteKnownLayout(const Call* call);
  std::string KnownInput(const Expr* e) const;
  std::string KnownFields(const Expr* e) const;
  // The mutated child, back in its original layout.
  const Expr* Realize(const Expr* c);
  // The inputs of `call` from `first` on, each back in its original layout.
  void AppendRealized(const Call* call, size_t first, std::vector<const Expr*>& args);
  const Expr* TransformOnce(const Expr* value, const std::string& src, const std::string& dst);
  const Expr* TransformBroadcastOperand(const Expr* value, const TensorType* type,
                                        const std::string& src, const std::string& dst);
  // `call` rebuilt over `args`, typed from the original's type written in
  // `layout` (which is `from` in the original).
  const Call* Remake(const Call* call, std::vector<const Expr*> args, const Attrs* attrs,
                     const std::string& from, const std::string& layout);
  const Expr* Record(const Expr* original, const Expr* value, std::string old_layout,
                     std::string new_layout);
  // `call` over its mutated data input (and the others realized) with
  // `attrs`, its result moving from `old_out` to `new_out`.
  const Expr* RemakeUnary(const Call* call, const Attrs* attrs, const std::string& old_out,
                          const std::string& new_out);

  // The layouts a listed op converts to ("" depthwise_kernel: `kernel`).
  struct Target {
    std::string data, kernel, depthwise_kernel;
  };

  // --- conv_rules.cc ---
  const Expr* ConvertConv(const Call* call);
  const Expr* ConvertConvBlocked(const Call* call, const Target& desired);
  // --- convert_rules.cc ---
  const Expr* ConvertDataLayout(const Call* call);
  bool Depthwise(const Call* call) const;

  // --- follow_rules.cc ---
  const Expr* AdaptElemwise(const Call* call);
  const Expr* AdaptPool(const Call* call);
  const Expr* AdaptBroadcast(const Call* call);

  // --- axis_rules.cc ---
  const Expr* AdaptAxis(const Call* call);
  const Expr* AdaptBatchNorm(const Call* call);
  const Expr* AdaptReduce(const Call* call);
  const Expr* AdaptPad(const Call* call);
  const Expr* AdaptConcat(const Call* call);
  const Expr* AdaptTranspose(const Call* call);
  const Expr* AdaptStridedSlice(const Call* call);
  const Expr* AdaptSplit(const Call* call);
  const Expr* AdaptSqueeze(const Call* call);
  const Expr* AdaptNorm(const Call* call);

  // --- infer_rules.cc ---
  const Expr* AdaptUpsampling(const Call* call);
  const Expr* AdaptSliceLike(const Call* call);
  const Expr* AdaptTopK(const Call* call);

  absl::flat_hash_map<const OpInfo*, Target> convert_ops_;
  // DesiredLayout::skip_layers, and how many nn.conv2d calls were converted
  // or skipped so far.
  absl::flat_hash_set<int64_t> skip_layers_;
  int64_t skip_counter_ = 0;
  absl::flat_hash_map<const Expr*, Alt> alt_;
  // Values whose layout TVM's rules define, left in it (TVM: a layout
  // alternated expr with old == new).
  absl::flat_hash_map<const Expr*, std::string> known_;
  absl::flat_hash_map<const Expr*, TupleAlt> tuple_alt_;
  // Calls with a tuple result read other than through a projection.
  absl::flat_hash_set<const Expr*> blocked_;
  std::map<std::tuple<const Expr*, std::string, std::string>, const Expr*> transforms_;
};

}  // namespace carve::layout
