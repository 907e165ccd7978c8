// DocStore rendering: references, indentation markers and newlines found at
// every position of the renderer's scanning blocks, and indentation deeper
// than its table of spaces.
#include "grammar/printer_doc.h"

#include <string>

#include "grammar/printer_relay.h"
#include "gtest/gtest.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve::print_internal {
namespace {

// The rendering of one document without references, byte by byte.
std::string Naive(const std::string& doc, size_t indent = 0) {
  std::string out;
  for (char c : doc) {
    if (c == '\n') {
      out += '\n' + std::string(indent, ' ');
    } else if (c == DocStore::kIndent) {
      indent += 2;
    } else if (c == DocStore::kDedent) {
      indent -= 2;
    } else {
      out += c;
    }
  }
  return out;
}

TEST(PrinterDoc, MarkersAtEveryOffset) {
  for (size_t offset = 0; offset < 80; ++offset) {
    DocStore docs;
    DocId root = docs.New();
    // Bytes above 0x7f must not read as markers.
    std::string text = std::string(offset, 'a') + "\xc3\xa9" + '\x02' + "b\nc" + '\x03' +
                       std::string(offset % 37, 'z') + "\n\xff" + std::string(40, 'q');
    docs[root] = text;
    std::string out;
    docs.Render(root, &out);
    EXPECT_EQ(out, Naive(text)) << offset;
  }
}

TEST(PrinterDoc, DeepIndentationAndReferences) {
  DocStore docs;
  DocId root = docs.New();
  DocId inner = docs.New();
  std::string deep;
  for (int i = 0; i < 150; ++i) deep += '\x02';
  deep += "x\ny";
  docs[inner] = deep;
  docs[root] = "(";
  docs.AppendRef(root, inner);
  docs[root] += "\nz";
  std::string out;
  docs.Render(root, &out);
  EXPECT_EQ(out, "(x\n" + std::string(300, ' ') + "y\n" + std::string(300, ' ') + "z");
}

// RenderAndRelease renders a document and frees, for New(), every document
// it referred to (directly or through others), but not those it did not.
TEST(PrinterDoc, RenderAndReleaseFreesTheReferencedDocuments) {
  DocStore docs;
  DocId line = docs.New();
  DocId fn = docs.New();
  DocId body = docs.New();
  DocId pending = docs.New();
  docs[body] = "y";
  docs[fn] = std::string("fn {") + DocStore::kIndent + "\n";
  docs.AppendRef(fn, body);
  docs[fn].append(std::string(1, DocStore::kDedent) + "\n}");
  docs[pending] = "later";
  docs[line] = "%0 = ";
  docs.AppendRef(line, fn);
  docs[line].append(";\n");
  size_t indent = 2;
  std::string out;
  docs.RenderAndRelease(line, &indent, &out);
  EXPECT_EQ(out, "%0 = fn {\n    y\n  };\n  ");
  EXPECT_EQ(indent, 2u);
  EXPECT_TRUE(docs[line].empty());
  // The two released ids come back (emptied) before any new one.
  DocId a = docs.New();
  DocId b = docs.New();
  EXPECT_TRUE((a == fn && b == body) || (a == body && b == fn));
  EXPECT_TRUE(docs[a].empty());
  EXPECT_TRUE(docs[b].empty());
  EXPECT_EQ(docs.New(), pending + 1);
  EXPECT_EQ(docs[pending], "later");
  // Truncate forgets released ids beyond the cut.
  DocId c = docs.New();
  docs[line] = "x";
  docs.AppendRef(line, c);
  docs.RenderAndRelease(line, &indent, &out);
  docs.Truncate(pending + 1);
  EXPECT_EQ(docs.New(), pending + 1);
}

// Frozen documents render as others, nested in each other and in regular
// ones; once RenderAndRelease has rendered every one, the region is reused,
// and a text larger than a block gets its own.
TEST(PrinterDoc, FrozenDocumentsRenderAndTheirRegionIsReused) {
  DocStore docs;
  DocId body = docs.Freeze("y;\nz");
  EXPECT_NE(body & DocStore::kFrozen, 0u);
  DocId head = docs.New();
  docs[head] = std::string("fn {") + DocStore::kIndent + "\n";
  docs.AppendRef(head, body);
  docs[head].append(std::string(1, DocStore::kDedent) + "\n}");
  size_t fn_size = docs[head].size();
  DocId fn = docs.Freeze(docs[head]);
  docs.Release(head);
  EXPECT_EQ(docs.New(), head);  // released for reuse
  std::string big(200000, 'b');
  DocId large = docs.Freeze(big);
  DocId line = docs.New();
  docs[line] = "%0 = ";
  docs.AppendRef(line, fn);
  docs[line].append(";\n");
  EXPECT_EQ(docs.TotalBytes(), docs[line].size() + 4 + fn_size + big.size());
  size_t indent = 0;
  std::string out;
  docs.RenderAndRelease(line, &indent, &out);
  EXPECT_EQ(out, "%0 = fn {\n  y;\n  z\n};\n");
  // `large` is still waiting: nothing is reused yet.
  docs[line] = "";
  docs.AppendRef(line, large);
  out.clear();
  docs.RenderAndRelease(line, &indent, &out);
  EXPECT_EQ(out, big);
  // All rendered: the ids and the region start again.
  DocId again = docs.Freeze("again");
  EXPECT_EQ(again, body);
  docs[line] = "";
  docs.AppendRef(line, again);
  out.clear();
  docs.Render(line, &out);
  EXPECT_EQ(out, "again");
}

// TotalBytes counts the documents still to render: not the frozen ones that
// RenderAndRelease rendered (the region is then written afresh), nor those
// Truncate dropped.
TEST(PrinterDoc, TotalBytesForgetsRenderedAndDroppedFrozenDocuments) {
  DocStore docs;
  DocId line = docs.New();
  DocId first = docs.Freeze("abc");
  DocId second = docs.Freeze("defgh");
  EXPECT_EQ(docs.TotalBytes(), 8u);
  docs.AppendRef(line, first);
  size_t indent = 0;
  std::string out;
  docs.RenderAndRelease(line, &indent, &out);
  EXPECT_EQ(out, "abc");
  EXPECT_EQ(docs.TotalBytes(), 5u);  // `second` is still waiting
  docs.AppendRef(line, second);
  docs.RenderAndRelease(line, &indent, &out);
  EXPECT_EQ(docs.TotalBytes(), 0u);  // all rendered: the region is reset
  docs.Freeze("0123456789");
  DocId kept = docs.New();
  docs[kept] = "kept";
  DocId dropped = docs.New();
  docs[dropped] = "dropped";
  EXPECT_EQ(docs.TotalBytes(), 21u);
  docs.Truncate(dropped);  // drops `dropped` and every frozen document
  EXPECT_EQ(docs.TotalBytes(), 4u);
}

// A nested body's scratch document is emptied once frozen and released
// when the next definition starts: a module printed whole does not keep one
// filled string per nesting depth per definition.
TEST(PrinterDoc, ScratchScopesAreReusedAcrossDefinitions) {
  Module mod;
  testing::TestBuilder b(&mod);
  for (int i = 0; i < 3; ++i) {
    const Var* y = b.Untyped("y");
    const Var* x = b.Untyped("x");
    b.Def("f" + std::to_string(i), {x}, b.Apply(b.Fn({y}, b.Op("negative", {y})), {x}));
  }
  RelayTextPrinter printer(/*show_types=*/false);
  std::vector<DocId> sizes = {printer.docs().size()};
  std::vector<DocId> definitions;
  for (const auto& [global, fn] : mod.Functions()) {
    definitions.push_back(printer.PrintDefinition(global, fn));
    sizes.push_back(printer.docs().size());
  }
  // A further definition adds its own two documents (its head and body):
  // the nested body's scratch document is the one the first one made.
  EXPECT_EQ(sizes[2] - sizes[1], 2u);
  EXPECT_EQ(sizes[3] - sizes[2], 2u);
  std::string out;
  printer.docs().Render(definitions[2], &out);
  EXPECT_EQ(out, "def @f2(%x2) {\n  %2 = fn (%y2) {\n    negative(%y2)\n  };\n  %2(%x2)\n}");
}

#ifndef NDEBUG
// Debug builds catch a frozen document rendered after the region's reset.
TEST(PrinterDocDeathTest, FrozenDocumentRenderedTwice) {
  DocStore docs;
  DocId line = docs.New();
  DocId frozen = docs.Freeze("once");
  docs.AppendRef(line, frozen);
  size_t indent = 0;
  std::string out;
  docs.RenderAndRelease(line, &indent, &out);
  docs.AppendRef(line, frozen);
  EXPECT_DEATH(docs.RenderAndRelease(line, &indent, &out), "after its reset");
}
#endif

}  // namespace
}  // namespace carve::print_internal
