// Ops whose attrs TVM v0.16 prints as `meta[relay.attrs.X][i]`: their
// RELAY_REGISTER_OP has no set_attrs_type, so TVM's PrintCallAttrs cannot
// print the attrs inline. carve reads that form (the object in `#[metadata]`
// as TVM's JSON node graph: Integer / Array / Bool / String members as node
// references, POD members inline), writes it with --meta-attrs (or when the
// text it read used it), and both forms give the same module.
#include <set>
#include <string>

#include "fmt/format.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/op.h"
#include "ir/structural_equal.h"

namespace carve {
namespace {

// Every op TVM registers without an attrs type whose calls carry attrs
// (src/relay at v0.16.0: RELAY_REGISTER_OP chains without set_attrs_type,
// intersected with the ops whose Make functions create an attrs object).
const std::set<std::string> kTvmMetaAttrOps = {
    "annotation.cast_hint",
    "annotation.compiler_begin",
    "annotation.compiler_end",
    "annotation.with_funcid",
    "collapse_sum_to",
    "cumprod",
    "cumsum",
    "dft",
    "dyn.expand_dims",
    "nn.dilate",
    "scatter_elements",
    "scatter_nd",
    "stft",
    "trilu",
    "unique",
    "vision.all_class_non_max_suppression",
    "vision.get_valid_counts",
    "vision.non_max_suppression",
    "vision.proposal",
    "vision.regular_non_max_suppression",
    "vision.roi_align",
    "vision.roi_pool",
};

TEST(PrinterMetaOps, RegistryMarksExactlyTvmsOpsWithoutAttrsType) {
  std::set<std::string> carve;
  for (const OpInfo* op : AllOps()) {
    if (op->attrs != nullptr && !op->attrs_type_registered) carve.emplace(op->name);
  }
  EXPECT_EQ(carve, kTvmMetaAttrOps);
}

// One call per op, attrs written inline (carve's extension), with values
// other than the defaults where a field has one worth checking.
struct Case {
  const char* op;
  const char* args;
  const char* attrs;
  const char* type_key;
};
constexpr Case kCases[] = {
    {"annotation.cast_hint", "%a", "dtype=\"float16\"", "CastHintAttrs"},
    {"annotation.compiler_begin", "%a", "compiler=\"dnnl\"", "CompilerAttrs"},
    {"annotation.compiler_end", "%a", "compiler=\"dnnl\"", "CompilerAttrs"},
    {"annotation.with_funcid", "%a", "fid=3", "WithFuncIdAttrs"},
    {"collapse_sum_to", "%a, %b", "shape=[2, 1]", "InitOpAttrs"},
    {"cumprod", "%a", "axis=0, dtype=\"int64\"", "ScanopAttrs"},
    {"cumsum", "%a", "axis=1, exclusive=True", "ScanopAttrs"},
    {"dft", "%a, %b", "inverse=True", "DFTAttrs"},
    {"dyn.expand_dims", "%a, %b", "num_newaxis=2", "DynExpandDimsAttrs"},
    {"nn.dilate", "%a", "strides=[1, 2], dilation_value=0.5f", "DilateAttrs"},
    {"scatter_elements", "%a, %b, %c", "axis=1, reduction=\"mul\"", "ScatterElementsAttrs"},
    {"scatter_nd", "%a, %b, %c", "mode=\"add\"", "ScatterNDAttrs"},
    {"stft", "%a, %b", "n_fft=8, hop_length=2, win_length=8, normalized=True", "StftAttrs"},
    {"trilu", "%a, %b", "upper=False", "TriluAttrs"},
    {"unique", "%a", "sorted=False, return_counts=True", "UniqueAttrs"},
    {"vision.all_class_non_max_suppression", "%a, %b, %c, %d, %e", "output_format=\"tensorflow\"",
     "AllClassNonMaximumSuppressionAttrs"},
    {"vision.get_valid_counts", "%a, %b", "score_threshold=0.25f, id_index=1, score_index=2",
     "GetValidCountsAttrs"},
    {"vision.non_max_suppression", "%a, %b, %c, %d, %e", "force_suppress=True, top_k=5",
     "NonMaximumSuppressionAttrs"},
    {"vision.proposal", "%a, %b, %c", "scales=[2f, 4f], ratios=[1f], threshold=0.6f",
     "ProposalAttrs"},
    {"vision.regular_non_max_suppression", "%a, %b",
     "max_detections_per_class=3, max_detections=10, num_classes=4, iou_threshold=0.5f, "
     "score_threshold=0.1f",
     "RegularNonMaximumSuppressionAttrs"},
    {"vision.roi_align", "%a, %b",
     "pooled_size=[7, 7], spatial_scale=0.0625f, sample_ratio=2, layout=\"NHWC\", mode=\"max\"",
     "ROIAlignAttrs"},
    {"vision.roi_pool", "%a, %b", "pooled_size=[3, 3], spatial_scale=0.5f", "ROIPoolAttrs"},
};

std::string InlineText(const Case& c) {
  return std::string("#[version = \"0.0.5\"]\ndef @main(%a, %b, %c, %d, %e) {\n  ") + c.op + "(" +
         c.args + ", " + c.attrs + ")\n}\n";
}

TEST(PrinterMetaOps, EveryOpRoundTripsThroughTheMetaForm) {
  std::set<std::string> covered;
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.op);
    covered.emplace(c.op);
    auto inline_mod = ParseModule("inline.relay", InlineText(c));
    ASSERT_TRUE(inline_mod.ok()) << inline_mod.status();
    PrintOptions options;
    options.meta_attrs = true;
    std::string meta_text = PrintModule(*inline_mod, options);
    std::string ref = fmt::format(
        "{}(%a{}meta[relay.attrs.{}][0])", c.op,
        std::string(c.args).size() > 2 ? std::string(c.args).substr(2) + ", " : std::string(", "),
        c.type_key);
    EXPECT_NE(meta_text.find(ref), std::string::npos) << ref << "\n" << meta_text;
    EXPECT_NE(meta_text.find("\"type_key\": \"relay.attrs." + std::string(c.type_key) + "\""),
              std::string::npos)
        << meta_text;
    auto meta_mod = ParseModule("meta.relay", meta_text);
    ASSERT_TRUE(meta_mod.ok()) << meta_mod.status() << "\n" << meta_text;
    EXPECT_TRUE(StructuralEqual(*inline_mod, *meta_mod)) << meta_text;
    // Text that used the meta form prints back in it, byte for byte.
    EXPECT_EQ(PrintModule(*meta_mod), meta_text);
    // Without metadata (TVM's show_meta_data=False) the attrs print inline.
    PrintOptions no_meta = options;
    no_meta.show_metadata = false;
    EXPECT_EQ(PrintModule(*meta_mod, no_meta).find("meta[relay.attrs"), std::string::npos);
  }
  EXPECT_EQ(covered, kTvmMetaAttrOps);
}

// The object as TVM v0.16 serialises ScanopAttrs: `axis` (Integer) and
// `exclusive` (Bool) are node references, `dtype` (DataType) is inline.
TEST(PrinterMetaOps, ReadsTvmsScanopAttrsObject) {
  constexpr char kText[] = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  cumsum(%x, meta[relay.attrs.ScanopAttrs][0])
}

#[metadata]
{
  "root": 1, 
  "nodes": [
    {
      "type_key": ""
    }, 
    {
      "type_key": "Map", 
      "keys": [
        "relay.attrs.ScanopAttrs"
      ], 
      "data": [2]
    }, 
    {
      "type_key": "Array", 
      "data": [3]
    }, 
    {
      "type_key": "relay.attrs.ScanopAttrs", 
      "attrs": {
        "axis": "4", 
        "dtype": "float32", 
        "exclusive": "5"
      }
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "int32", 
        "span": "0", 
        "value": "1"
      }
    }, 
    {
      "type_key": "IntImm", 
      "attrs": {
        "dtype": "bool", 
        "span": "0", 
        "value": "1"
      }
    }
  ], 
  "b64ndarrays": [], 
  "attrs": {"tvm_version": "0.16.0"}
})";
  auto mod = ParseModule("tvm.relay", kText);
  ASSERT_TRUE(mod.ok()) << mod.status();
  auto same = ParseModule("inline.relay", R"(#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32]) {
  cumsum(%x, axis=1, dtype="float32", exclusive=True)
}
)");
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_TRUE(StructuralEqual(*mod, *same));
  EXPECT_EQ(PrintModule(*mod), kText);
}

// An unset Integer member is TVM's node 0 (nullptr), a void DataType "".
TEST(PrinterMetaOps, NullIntegerAndVoidDtype) {
  auto mod = ParseModule("inline.relay", R"(#[version = "0.0.5"]
def @main(%x) {
  cumsum(%x)
}
)");
  ASSERT_TRUE(mod.ok()) << mod.status();
  PrintOptions options;
  options.meta_attrs = true;
  std::string text = PrintModule(*mod, options);
  EXPECT_NE(text.find(R"("axis": "0", 
        "dtype": "", 
        "exclusive": "4")"),
            std::string::npos)
      << text;
  auto back = ParseModule("meta.relay", text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(StructuralEqual(*mod, *back));
}

}  // namespace
}  // namespace carve
