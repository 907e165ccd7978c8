// The lexer and parser on mapped texts: a file mapping is not
// NUL-terminated, and one whose size is a multiple of the page size has no
// byte after it. Every text here ends exactly at a page boundary with an
// inaccessible page after it, so a read past the end crashes the test.
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/lexer.h"
#include "grammar/parser.h"
#include "gtest/gtest.h"
#include "support/source.h"
#include "test_util.h"

namespace carve {
namespace {

size_t PageSize() { return static_cast<size_t>(::sysconf(_SC_PAGESIZE)); }

// `text` padded in front with spaces to a whole number of pages, written to
// a memory file and mapped through SourceText::FromFile, with a PROT_NONE
// page reserved right after the mapping.
class GuardedText {
 public:
  explicit GuardedText(std::string_view text) {
    size_t page = PageSize();
    std::string padded(text.size() % page == 0 ? 0 : page - text.size() % page, ' ');
    padded.append(text);
    // The guard is reserved first, with a hole of the text's size right
    // below it for the mapping to take (the kernel fills the highest hole
    // that fits, and would otherwise put it right below its last mapping).
    // Guards are never unmapped, so that they leave no holes for later
    // mappings to fall into; a mapping that landed elsewhere anyway is
    // held until the retry has placed the next one.
    std::vector<SourceText> elsewhere;
    for (int attempt = 0; attempt < 16 && guard_ == nullptr; ++attempt) {
      void* region = ::mmap(nullptr, padded.size() + page, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (region == MAP_FAILED) return;
      char* guard = static_cast<char*>(region) + padded.size();
      ::munmap(region, padded.size());
      SourceText mapped = MapCopy(padded);
      if (mapped.mapped() && mapped.view().data() + mapped.view().size() == guard) {
        guard_ = guard;
        text_ = std::move(mapped);
      } else {
        elsewhere.push_back(std::move(mapped));
      }
    }
  }
  bool ok() const { return guard_ != nullptr && text_.mapped(); }
  std::string_view view() const { return text_.view(); }
  SourceText Take() { return std::move(text_); }

 private:
  static SourceText MapCopy(const std::string& padded) {
    int fd = ::memfd_create("carve-mapped-text-test", MFD_CLOEXEC);
    if (fd < 0) return SourceText();
    size_t done = 0;
    while (done < padded.size()) {
      ssize_t n = ::write(fd, padded.data() + done, padded.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    absl::StatusOr<SourceText> text = SourceText::FromFile("/proc/self/fd/" + std::to_string(fd));
    ::close(fd);
    return text.ok() ? *std::move(text) : SourceText();
  }

  void* guard_ = nullptr;
  SourceText text_;
};

// Lexes the whole text (to EOF, past any error), then parses it.
void LexAndParse(std::string_view text) {
  GuardedText guarded(text);
  ASSERT_TRUE(guarded.ok()) << "could not map the text with a guard page";
  ASSERT_EQ(guarded.view().size() % PageSize(), 0u);
  Lexer lexer(guarded.view(), 0, nullptr);
  for (int i = 0; i < 1000000 && !lexer.Next().Is(TokenKind::kEof); ++i) {
  }
  (void)ParseModule("guarded.relay", guarded.Take());
}

// Tokens of every kind, each also cut off at every byte by the prefixes.
constexpr std::string_view kTokens = R"(#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3), float32], %conv1.weight: float16, %byoc-target_0_i0: int8) -> float32 {
  // a line comment
  /* a /* nested */ block */
  %0 = nn.conv2d(%x, %conv1.weight, padding=[1, 1], data_layout="NCHW", s="a\"b\\c\n") /* ty=float32 */;
  %1 = add(%0, -3i64) ; %2 = (%0, 1.5e-3f32, --5, -inff16, nanf, 7u8, 0.5f64, True, False);
  %3 = %2.1 ; let %y: (int32, ) = meta[relay.Constant][12];
  %4 = if (%1 <= %0 && %1 != %0) { 1 } else { -2 } ;
  fn (%p) -> float32 { %p } ... => -> == >= ! ? | _ @g %12 "unterminated
}
#[metadata]
{"root": 1, "nodes": [{"type_key": ""}], "b64ndarrays": [], "attrs": {"tvm_version": "0.16.0"}}
)";

TEST(MappedTextTest, EveryPrefixOfEveryTokenKind) {
  for (size_t n = 1; n <= kTokens.size(); ++n) {  // an empty file is not mapped
    SCOPED_TRACE(n);
    ASSERT_NO_FATAL_FAILURE(LexAndParse(kTokens.substr(0, n)));
  }
}

TEST(MappedTextTest, EveryPrefixOfACorpusModule) {
  // Repeated bindings of the same shapes take the parser's raw-text fast
  // paths (recent ops, attributes and types), which scan ahead of the lexer.
  std::string text = testing_util::ReadFile(testing_util::CorpusPath("demo_2_annotate_target.relay"));
  ASSERT_FALSE(text.empty());
  text.resize(std::min<size_t>(text.size(), 3000));
  for (size_t n = 1; n <= text.size(); ++n) {
    SCOPED_TRACE(n);
    ASSERT_NO_FATAL_FAILURE(LexAndParse(std::string_view(text).substr(0, n)));
  }
}

TEST(MappedTextTest, WholeModulesEndingAtAPageBoundaryParse) {
  for (const char* name : {"scalars_let_if_fn.relay", "resnet18_cifar.relay",
                           "demo_4_partition_graph.relay"}) {
    SCOPED_TRACE(name);
    std::string text = testing_util::ReadFile(testing_util::CorpusPath(name));
    ASSERT_FALSE(text.empty());
    GuardedText guarded(text);
    ASSERT_TRUE(guarded.ok());
    absl::StatusOr<Module> parsed = ParseModule(name, guarded.Take());
    EXPECT_TRUE(parsed.ok()) << parsed.status();
  }
}

TEST(MappedTextTest, ErrorsPointIntoTheMappedText) {
  GuardedText guarded("#[version = \"0.0.5\"]\ndef @main() { %x }");
  ASSERT_TRUE(guarded.ok());
  absl::StatusOr<Module> parsed = ParseModule("guarded.relay", guarded.Take());
  ASSERT_FALSE(parsed.ok());
  // The padding spaces sit in front of the first line.
  std::string locations = testing_util::Locations(parsed.status());
  EXPECT_NE(locations.find("2:15: "), std::string::npos) << locations;
}

}  // namespace
}  // namespace carve
