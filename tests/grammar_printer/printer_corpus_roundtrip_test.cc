// The whole corpus through parse -> InferType -> print: the text must be the
// file TVM printed, byte for byte, apart from the metadata section (carve's
// writer; compared as decoded tensors) and the compiler annotations carve
// writes inline. Then printing is a fixpoint: parse(print(m)) prints the same.
#include <string>

#include "grammar/metadata.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "passes/infer/infer_type.h"
#include "support/diagnostics.h"
#include "tests/common/corpus_files.h"
#include "tests/grammar_printer/printer_test_util.h"

namespace carve {
namespace {

using testing::CarveForm;
using testing::CorpusText;
using testing::ReadCorpus;

PrintOptions WithTypes(bool types) {
  PrintOptions options;
  options.show_types = types;
  return options;
}

absl::StatusOr<Module> ParseTyped(std::string_view name, std::string text) {
  absl::StatusOr<Module> mod = ParseModule(name, std::move(text));
  if (!mod.ok()) return mod.status();
  absl::Status typed = InferType(*mod);
  if (!typed.ok()) return typed;
  return mod;
}

void ExpectSameConstants(const std::string& got_json, const std::string& want_json) {
  if (want_json.empty()) {
    EXPECT_TRUE(got_json.empty());
    return;
  }
  absl::StatusOr<Metadata> got = ParseMetadata(got_json);
  absl::StatusOr<Metadata> want = ParseMetadata(want_json);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok()) << want.status();
  ASSERT_EQ(got->constants.size(), want->constants.size());
  for (size_t i = 0; i < got->constants.size(); ++i) {
    EXPECT_TRUE(got->constants[i].BitwiseEqual(want->constants[i])) << "constant " << i;
  }
}

class PrinterCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(PrinterCorpus, PrintsWhatTvmPrinted) {
  std::string tvm = ReadCorpus(GetParam());
  ASSERT_FALSE(tvm.empty());
  absl::StatusOr<Module> mod = ParseTyped(GetParam(), tvm);
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  CorpusText want = CarveForm(tvm);
  CorpusText got = CarveForm(PrintModule(*mod, WithTypes(true)));
  EXPECT_EQ(got.program, want.program);
  ExpectSameConstants(got.metadata, want.metadata);
}

// Every `.relay` file prints back exactly, metadata section included: the
// IntImm nodes its constants' shapes share (grammar/printer_dim_identity.h)
// and the meta[relay.attrs.CompilerAttrs] references its text used. (The
// `.txt` file has variable names TVM's own parser rejects, which carve
// prints differently.)
TEST_P(PrinterCorpus, PrintsTvmTextByteForByte) {
  if (GetParam().ends_with(".txt")) GTEST_SKIP() << "not parseable by TVM";
  std::string tvm = ReadCorpus(GetParam());
  absl::StatusOr<Module> mod = ParseTyped(GetParam(), tvm);
  ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
  EXPECT_EQ(PrintModule(*mod, WithTypes(true)), tvm);
}

TEST_P(PrinterCorpus, PrintingIsAFixpoint) {
  for (bool types : {false, true}) {
    SCOPED_TRACE(types ? "with types" : "without types");
    absl::StatusOr<Module> mod = ParseTyped(GetParam(), ReadCorpus(GetParam()));
    ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
    std::string once = PrintModule(*mod, WithTypes(types));
    absl::StatusOr<Module> again = ParseTyped("printed", once);
    ASSERT_TRUE(again.ok()) << RenderStatus(again.status()) << "\n" << once;
    EXPECT_EQ(PrintModule(*again, WithTypes(types)), once);
  }
}

// PrintModuleTo renders each line of a definition's body as it is finished
// and reuses the documents it held: the pieces joined are PrintModule's text
// whatever the piece size (1 byte: a piece handed on after every line).
TEST_P(PrinterCorpus, StreamedPiecesJoinToThePrintedText) {
  for (bool types : {false, true}) {
    SCOPED_TRACE(types ? "with types" : "without types");
    absl::StatusOr<Module> mod = ParseTyped(GetParam(), ReadCorpus(GetParam()));
    ASSERT_TRUE(mod.ok()) << RenderStatus(mod.status());
    std::string whole = PrintModule(*mod, WithTypes(types));
    for (size_t chunk : {size_t{1}, size_t{100}, size_t{1} << 20}) {
      std::string joined;
      PrintModuleTo(
          *mod, WithTypes(types), [&](std::string_view piece) { joined.append(piece); }, chunk);
      EXPECT_EQ(joined, whole) << "chunk " << chunk;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, PrinterCorpus, ::testing::ValuesIn(testing_util::CorpusFiles()),
                         testing_util::CorpusCaseName);

}  // namespace
}  // namespace carve
