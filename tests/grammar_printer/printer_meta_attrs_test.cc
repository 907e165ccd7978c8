// PrintOptions::meta_attrs: compiler_begin/end attributes printed as TVM does,
// `meta[relay.attrs.CompilerAttrs][i]` with the objects in `#[metadata]`, also
// next to meta[relay.Constant][i] constants in the same section. The text
// re-parses to a structurally equal module. (Byte-for-byte comparisons with
// TVM's output are in tests/golden/byoc/demo_meta.relay.)
#include <string>

#include "grammar/metadata.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/structural_equal.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::CompilerAttrs;
using testing::F32;
using testing::TestBuilder;

NDArray Filled(std::initializer_list<int64_t> shape, float start) {
  NDArray a = NDArray::Empty(DataType::Float(32), shape);
  float* p = a.data<float>();
  for (int64_t i = 0; i < a.num_elements(); ++i) p[i] = start + float(i);
  return a;
}

// @main(%x) = end(add(begin(meta[Constant][0]), begin(%x)) + meta[Constant][1]),
// with the first constant used before the first annotation when
// `constant_first`.
Module BuildMixed(bool constant_first) {
  Module mod;
  TestBuilder b(&mod);
  const Var* x = b.Param("x", F32({2, 2}));
  const Expr* c0 = b.Tensor(Filled({2, 2}, 1), F32({2, 2}));
  const Expr* c1 = b.Tensor(Filled({2}, 10), F32({2}));
  const Attrs* target = CompilerAttrs("byoc_target");
  const Attrs* fallback = CompilerAttrs("default");
  const Expr* lhs = b.Op("annotation.compiler_begin", {c0}, F32({2, 2}), target);
  const Expr* rhs = b.Op("annotation.compiler_begin", {x}, F32({2, 2}), target);
  if (!constant_first) std::swap(lhs, rhs);
  const Expr* sum = b.Op("add", {lhs, rhs}, F32({2, 2}));
  const Expr* end = b.Op("annotation.compiler_end", {sum}, F32({2, 2}), target);
  const Expr* more = b.Op("annotation.compiler_begin", {end}, F32({2, 2}), fallback);
  const Expr* out = b.Op("add", {more, c1}, F32({2, 2}));
  b.Def("main", {x}, b.Op("annotation.compiler_end", {out}, F32({2, 2}), fallback), F32({2, 2}));
  return mod;
}

std::string PrintMeta(const Module& mod) {
  PrintOptions options;
  options.meta_attrs = true;
  return PrintModule(mod, options);
}

// The `"keys": [...]` line(s) of the section's root Map, as one string.
std::string MapKeys(const std::string& text) {
  size_t begin = text.find("\"keys\": [");
  size_t end = text.find(']', begin);
  if (begin == std::string::npos || end == std::string::npos) return "";
  return text.substr(begin, end + 1 - begin);
}

TEST(PrinterMetaAttrs, InlineByDefault) {
  Module mod = BuildMixed(true);
  std::string text = PrintModule(mod);
  EXPECT_NE(text.find("annotation.compiler_begin(meta[relay.Constant][0], "
                      "compiler=\"byoc_target\")"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("relay.attrs.CompilerAttrs"), std::string::npos) << text;
}

TEST(PrinterMetaAttrs, OneIndexPerCallInPrintOrder) {
  Module mod = BuildMixed(true);
  std::string text = PrintMeta(mod);
  // Interned attrs shared by three calls still give three objects.
  for (const char* want : {
           "annotation.compiler_begin(meta[relay.Constant][0], "
           "meta[relay.attrs.CompilerAttrs][0])",
           "annotation.compiler_begin(%x, meta[relay.attrs.CompilerAttrs][1])",
           "annotation.compiler_end(%2, meta[relay.attrs.CompilerAttrs][2])",
           "annotation.compiler_begin(%3, meta[relay.attrs.CompilerAttrs][3])",
           "add(%4, meta[relay.Constant][1])",
           "annotation.compiler_end(%5, meta[relay.attrs.CompilerAttrs][4])",
       }) {
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  }
  absl::StatusOr<Metadata> meta = ParseMetadata(text.substr(text.find("#[metadata]\n") + 12));
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->constants.size(), 2u);
  const std::vector<MetaAttrs>& attrs = meta->attrs["relay.attrs.CompilerAttrs"];
  ASSERT_EQ(attrs.size(), 5u);
  const char* targets[] = {"byoc_target", "byoc_target", "byoc_target", "default", "default"};
  for (size_t i = 0; i < 5; ++i) {
    ASSERT_EQ(attrs[i].fields.size(), 1u);
    EXPECT_EQ(attrs[i].fields[0].first, "compiler");
    EXPECT_EQ(attrs[i].fields[0].second.as_string(), targets[i]) << i;
  }
}

// TVM's meta table is a std::unordered_map: with libstdc++ the key used last
// for the first time is iterated (and so indexed and listed) first.
TEST(PrinterMetaAttrs, MapKeysInReverseFirstUse) {
  std::string constant_first = PrintMeta(BuildMixed(true));
  EXPECT_EQ(MapKeys(constant_first),
            "\"keys\": [\n        \"relay.attrs.CompilerAttrs\", \n        \"relay.Constant\"\n"
            "      ]");
  // The Map's data: the CompilerAttrs Array (2) with its five objects (3-7),
  // then the constants' Array (8).
  EXPECT_NE(constant_first.find("\"data\": [2, 8]"), std::string::npos) << constant_first;
  EXPECT_NE(constant_first.find("\"data\": [3, 4, 5, 6, 7]"), std::string::npos);
  EXPECT_NE(constant_first.find("\"data\": [9, 16]"), std::string::npos) << constant_first;

  std::string attrs_first = PrintMeta(BuildMixed(false));
  EXPECT_EQ(MapKeys(attrs_first),
            "\"keys\": [\n        \"relay.Constant\", \n        \"relay.attrs.CompilerAttrs\"\n"
            "      ]");
}

TEST(PrinterMetaAttrs, SectionLayout) {
  std::string text = PrintMeta(BuildMixed(true));
  EXPECT_NE(text.find("    {\n"
                      "      \"type_key\": \"relay.attrs.CompilerAttrs\", \n"
                      "      \"attrs\": {\"compiler\": \"byoc_target\"}\n"
                      "    }, \n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  \"attrs\": {\"tvm_version\": \"0.16.0\"}\n}"), std::string::npos);
}

TEST(PrinterMetaAttrs, ReparsesToAnEqualModule) {
  for (bool constant_first : {true, false}) {
    Module mod = BuildMixed(constant_first);
    std::string text = PrintMeta(mod);
    absl::StatusOr<Module> back = ParseModule("meta_attrs", text);
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << text;
    auto diff = StructuralDiffModules(mod, *back);
    EXPECT_FALSE(diff.has_value()) << (diff ? diff->lhs_path + ": " + diff->message : "") << "\n"
                                   << text;
    // And printing the parsed module again gives the same text.
    EXPECT_EQ(PrintMeta(*back), text);
  }
}

TEST(PrinterMetaAttrs, WithoutMetadataPrintsInline) {
  PrintOptions options;
  options.meta_attrs = true;
  options.show_metadata = false;
  std::string text = PrintModule(BuildMixed(true), options);
  EXPECT_NE(text.find("compiler=\"byoc_target\""), std::string::npos) << text;
  EXPECT_EQ(text.find("relay.attrs.CompilerAttrs"), std::string::npos) << text;
}

// A module parsed from text that wrote the attrs as meta references prints
// them that way by default (so TVM's text prints back unchanged); one whose
// text wrote them inline keeps carve's inline default.
TEST(PrinterMetaAttrs, ParsedModulesKeepTheirTextsForm) {
  std::string meta_text = PrintMeta(BuildMixed(true));
  absl::StatusOr<Module> meta = ParseModule("meta", meta_text);
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_TRUE(meta->meta_compiler_attrs());
  EXPECT_EQ(PrintModule(*meta), meta_text);

  std::string inline_text = PrintModule(BuildMixed(true));
  EXPECT_EQ(inline_text.find("relay.attrs.CompilerAttrs"), std::string::npos) << inline_text;
  absl::StatusOr<Module> plain = ParseModule("inline", inline_text);
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->meta_compiler_attrs());
  EXPECT_EQ(PrintModule(*plain), inline_text);
}

}  // namespace
}  // namespace carve
