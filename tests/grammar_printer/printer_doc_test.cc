// DocStore rendering: references, indentation markers and newlines found at
// every position of the renderer's scanning blocks, and indentation deeper
// than its table of spaces.
#include "grammar/printer_doc.h"

#include <string>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace carve::print_internal
