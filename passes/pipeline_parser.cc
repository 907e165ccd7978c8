// Parsing textual pipelines (see pass_registry.h for the syntax).
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/cord.h"
#include "fmt/format.h"
#include "support/edit_distance.h"
#include "passes/pass_registry.h"
#include "support/diagnostics.h"
#include "support/source.h"
#include "support/status_macros.h"

namespace carve {
namespace {

struct Token {
  enum Kind { kWord, kString, kPunct, kEnd } kind = kEnd;
  std::string text;
  uint32_t begin = 0;
  uint32_t end = 0;
};

// The status payload BlameArgument attaches: "param" or "param\nelement".
// (A char array: Debian's abseil takes its own string_view, not std's.)
constexpr char kBlamePayload[] = "carve.dev/pass-argument";

// One argument as written: an optional keyword and a word, string or list.
struct RawArg {
  std::string keyword;
  std::vector<std::string> values;
  std::vector<Span> value_spans;  // one per value
  bool is_list = false;
  Span span;        // from the keyword, if any
  Span value_span;  // the value: its word, string or '['
};

// Where a bound parameter's value was written: its first value (for an
// argument as a whole) and each element (a list parameter gathers the
// elements of several positional arguments).
struct ArgSpans {
  Span whole;
  std::vector<Span> elements;
};
using ArgSpanMap = std::map<std::string, ArgSpans, std::less<>>;

// One pass as written: its name and arguments, not yet looked up.
struct RawPass {
  Token name;
  std::vector<RawArg> args;
};

bool IsPunctChar(char c) { return c == '(' || c == ')' || c == ',' || c == '=' || c == '[' || c == ']'; }

class PipelineParser {
 public:
  PipelineParser(std::string_view text, const PassRegistry& registry)
      : text_(text), registry_(registry) {
    file_ = SourceManager::Global().Add("<pipeline>", std::string(text));
  }

  // The whole pipeline is read before any name is looked up: in `A(x=` the
  // unclosed bracket is the error to fix first, not the unknown pass A.
  absl::StatusOr<PassPtr> Parse() {
    CARVE_RETURN_IF_ERROR(Tokenize());
    std::vector<RawPass> raw;
    if (Peek().kind == Token::kEnd) return Error(Peek(), "empty pipeline");
    while (true) {
      CARVE_ASSIGN_OR_RETURN(RawPass pass, ParsePass());
      raw.push_back(std::move(pass));
      if (Peek().kind == Token::kEnd) break;
      CARVE_RETURN_IF_ERROR(Expect(","));
    }
    std::vector<PassPtr> passes;
    for (const RawPass& r : raw) {
      CARVE_ASSIGN_OR_RETURN(PassPtr pass, BuildPass(r));
      passes.push_back(std::move(pass));
    }
    return MakeSequential("Pipeline", std::move(passes));
  }

 private:
  absl::Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (IsPunctChar(c)) {
        tokens_.push_back({Token::kPunct, std::string(1, c), Pos(i), Pos(i + 1)});
        ++i;
      } else if (c == '"' || c == '\'') {
        size_t close = text_.find(c, i + 1);
        if (close == std::string_view::npos) {
          return SpanError(At(i, i + 1), "unterminated string in pipeline");
        }
        tokens_.push_back(
            {Token::kString, std::string(text_.substr(i + 1, close - i - 1)), Pos(i), Pos(close + 1)});
        i = close + 1;
      } else {
        size_t j = i;
        while (j < text_.size() && !IsPunctChar(text_[j]) && text_[j] != '"' && text_[j] != '\'' &&
               !std::isspace(static_cast<unsigned char>(text_[j]))) {
          ++j;
        }
        tokens_.push_back({Token::kWord, std::string(text_.substr(i, j - i)), Pos(i), Pos(j)});
        i = j;
      }
    }
    tokens_.push_back({Token::kEnd, "", Pos(text_.size()), Pos(text_.size())});
    return absl::OkStatus();
  }

  absl::StatusOr<RawPass> ParsePass() {
    RawPass pass;
    pass.name = Peek();
    if (pass.name.kind != Token::kWord) {
      return Error(pass.name, fmt::format("expected a pass name, got {}", Describe(pass.name)));
    }
    ++pos_;
    if (IsPunct("(")) {
      const Token& open = Peek();
      ++pos_;
      CARVE_ASSIGN_OR_RETURN(pass.args, ParseArgs(open));
    }
    return pass;
  }

  absl::StatusOr<PassPtr> BuildPass(const RawPass& raw) {
    const Token& name = raw.name;
    const PassInfo* info = registry_.Find(name.text);
    if (info == nullptr) return UnknownPass(name);
    ArgSpanMap spans;
    CARVE_ASSIGN_OR_RETURN(PassArgs bound, Bind(*info, name, raw.args, spans));
    absl::StatusOr<PassPtr> pass = info->create(bound);
    if (!pass.ok()) {
      // The argument the factory rejected, as written, else the pass name.
      const Span at = BlamedSpan(pass.status(), spans).value_or(At(name));
      // An error located in another file (a target's `.pat` spec that does
      // not parse) keeps its location; the pass it stopped gets a note.
      std::vector<Diagnostic> diags = StatusToDiagnostics(pass.status());
      if (!diags.empty() && diags.front().span.valid()) {
        diags.front().notes.push_back(Note{at, fmt::format("while building {}", info->name)});
        return DiagnosticsToStatus(diags, pass.status().code());
      }
      return FactoryError(*info, at, pass.status());
    }
    return pass;
  }

  // An error of `info`'s factory at `span`. Factories usually name their
  // pass already ("AnnotateTarget: ..."). The code stays the factory's: an
  // argument it rejects is InvalidArgument (bad usage on a command line), a
  // rule file it cannot read is NotFound (bad input), as `carve` reports
  // them.
  static absl::Status FactoryError(const PassInfo& info, Span span, const absl::Status& status) {
    std::string message(status.message());
    if (!message.starts_with(info.name + ":")) message = fmt::format("{}: {}", info.name, message);
    return SpanError(span, message, status.code());
  }

  // The argument a BlameArgument status names, as written; nullopt without
  // a blame, or when the argument took its default (not written).
  static std::optional<Span> BlamedSpan(const absl::Status& status, const ArgSpanMap& spans) {
    auto payload = status.GetPayload(kBlamePayload);  // absl::optional on Debian
    if (!payload) return std::nullopt;
    std::string text(*payload);
    size_t newline = text.find('\n');
    auto it = spans.find(std::string_view(text).substr(0, newline));
    if (it == spans.end()) return std::nullopt;
    if (newline != std::string::npos) {
      size_t element = 0;
      std::string_view digits = std::string_view(text).substr(newline + 1);
      std::from_chars(digits.data(), digits.data() + digits.size(), element);
      if (element < it->second.elements.size()) return it->second.elements[element];
    }
    return it->second.whole;
  }

  // The arguments after `open`, its closing ')' included.
  absl::StatusOr<std::vector<RawArg>> ParseArgs(const Token& open) {
    std::vector<RawArg> args;
    if (IsPunct(")")) {
      ++pos_;
      return args;
    }
    while (true) {
      RawArg arg;
      const Token& first = Peek();
      arg.span = At(first);
      if (first.kind == Token::kWord && pos_ + 1 < tokens_.size() &&
          tokens_[pos_ + 1].kind == Token::kPunct && tokens_[pos_ + 1].text == "=") {
        arg.keyword = first.text;
        pos_ += 2;
      }
      if (Peek().kind == Token::kEnd) return Unclosed(open, ')');
      CARVE_RETURN_IF_ERROR(ParseValue(arg));
      args.push_back(std::move(arg));
      if (IsPunct(")")) {
        ++pos_;
        return args;
      }
      if (Peek().kind == Token::kEnd) return Unclosed(open, ')');
      CARVE_RETURN_IF_ERROR(Expect(","));
    }
  }

  absl::Status ParseValue(RawArg& arg) {
    if (IsPunct("[")) {
      const Token& open = Peek();
      arg.value_span = At(open);
      ++pos_;
      arg.is_list = true;
      while (!IsPunct("]")) {
        const Token& t = Peek();
        if (t.kind == Token::kEnd) return Unclosed(open, ']');
        if (t.kind != Token::kWord && t.kind != Token::kString) {
          return Error(t, "expected a list element or ']'");
        }
        arg.values.push_back(t.text);
        arg.value_spans.push_back(At(t));
        ++pos_;
        if (IsPunct(",")) ++pos_;
      }
      ++pos_;
      return absl::OkStatus();
    }
    const Token& t = Peek();
    if (t.kind != Token::kWord && t.kind != Token::kString) {
      return Error(t, "expected an argument value");
    }
    arg.value_span = At(t);
    arg.values.push_back(t.text);
    arg.value_spans.push_back(At(t));
    ++pos_;
    return absl::OkStatus();
  }

  // Matches arguments to parameters: positionals in order (a list parameter
  // takes the rest), then keywords; fills defaults; converts values.
  absl::StatusOr<PassArgs> Bind(const PassInfo& info, const Token& name,
                                const std::vector<RawArg>& args, ArgSpanMap& spans) {
    PassArgs out;
    std::vector<bool> given(info.params.size(), false);
    size_t next_positional = 0;
    bool seen_keyword = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const RawArg& arg = args[i];
      size_t index = 0;
      std::vector<std::string> values = arg.values;
      ArgSpans where{arg.value_span, arg.value_spans};
      if (arg.keyword.empty()) {
        if (seen_keyword) {
          return SpanError(arg.span, "positional argument after a keyword argument");
        }
        if (next_positional >= info.params.size()) {
          if (info.params.empty()) {
            return SpanError(arg.span, fmt::format("{} takes no arguments", info.name));
          }
          return SpanError(arg.span, fmt::format("too many arguments: {} takes {}", info.name,
                                                 SignatureText(info)));
        }
        index = next_positional++;
        if (info.params[index].kind == PassParamKind::kStringList) {
          while (i + 1 < args.size() && args[i + 1].keyword.empty()) {
            ++i;
            values.insert(values.end(), args[i].values.begin(), args[i].values.end());
            where.elements.insert(where.elements.end(), args[i].value_spans.begin(),
                                  args[i].value_spans.end());
          }
        }
      } else {
        seen_keyword = true;
        CARVE_ASSIGN_OR_RETURN(index, ParamIndex(info, arg));
      }
      if (given[index]) {
        return SpanError(arg.span, fmt::format("argument '{}' given twice", info.params[index].name));
      }
      given[index] = true;
      CARVE_ASSIGN_OR_RETURN(PassArgs::Value v, Convert(info.params[index], values, arg));
      out.Set(info.params[index].name, std::move(v));
      spans[info.params[index].name] = std::move(where);
    }
    for (size_t k = 0; k < info.params.size(); ++k) {
      if (given[k]) continue;
      const PassParam& p = info.params[k];
      if (!p.default_value.has_value()) {
        return SpanError(At(name), fmt::format("{}: missing argument '{}' (signature: {})",
                                               info.name, p.name, SignatureText(info)));
      }
      RawArg fallback;
      fallback.span = At(name);
      fallback.value_span = At(name);
      std::vector<std::string> values;
      if (!p.default_value->empty() || p.kind != PassParamKind::kStringList) {
        values.push_back(*p.default_value);
      }
      CARVE_ASSIGN_OR_RETURN(PassArgs::Value v, Convert(p, values, fallback));
      out.Set(p.name, std::move(v));
    }
    return out;
  }

  absl::StatusOr<size_t> ParamIndex(const PassInfo& info, const RawArg& arg) {
    std::vector<std::string> names;
    for (size_t k = 0; k < info.params.size(); ++k) {
      if (info.params[k].name == arg.keyword) return k;
      names.push_back(info.params[k].name);
    }
    std::string near = NearestName(arg.keyword, names);
    std::string hint = near.empty() ? fmt::format(" (signature: {})", SignatureText(info))
                                    : fmt::format(" (did you mean '{}'?)", near);
    return SpanError(arg.span,
                     fmt::format("{} has no argument '{}'{}", info.name, arg.keyword, hint));
  }

  absl::StatusOr<PassArgs::Value> Convert(const PassParam& p, const std::vector<std::string>& values,
                                          const RawArg& arg) {
    PassArgs::Value v;
    if (p.kind == PassParamKind::kStringList) {
      v.list = values;
      return v;
    }
    if (values.size() != 1 || arg.is_list) {
      return SpanError(arg.span, fmt::format("'{}' takes one value, not a list", p.name));
    }
    v.text = values[0];
    switch (p.kind) {
      case PassParamKind::kBool:
        if (v.text == "True" || v.text == "true" || v.text == "1") {
          v.flag = true;
        } else if (v.text == "False" || v.text == "false" || v.text == "0") {
          v.flag = false;
        } else {
          return SpanError(arg.value_span,
                           fmt::format("'{}' expects True or False, got '{}'", p.name, v.text));
        }
        break;
      case PassParamKind::kInt: {
        auto [ptr, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), v.number);
        if (ec != std::errc() || ptr != v.text.data() + v.text.size()) {
          return SpanError(arg.value_span,
                           fmt::format("'{}' expects an integer, got '{}'", p.name, v.text));
        }
        break;
      }
      default:
        break;
    }
    return v;
  }

  absl::Status UnknownPass(const Token& name) {
    std::vector<std::string> names;
    for (const PassInfo* info : registry_.All()) names.push_back(info->name);
    std::string near = NearestName(name.text, names);
    if (near.empty()) {
      return SpanError(At(name), fmt::format("unknown pass '{}' (known passes: {})", name.text,
                                             fmt::join(names, ", ")));
    }
    return SpanError(At(name),
                     fmt::format("unknown pass '{}' (did you mean '{}'?)", name.text, near));
  }

  absl::Status Expect(std::string_view punct) {
    if (IsPunct(punct)) {
      ++pos_;
      return absl::OkStatus();
    }
    const Token& t = Peek();
    return Error(t, fmt::format("expected '{}', got {}", punct, Describe(t)));
  }

  // A truncated pipeline (`A(x`, `A(x=[1,2`): the error names the bracket
  // left open, which a shell's quoting makes easy to lose, and a note puts a
  // caret under it.
  absl::Status Unclosed(const Token& open, char close) {
    return SpanError(At(Peek()),
                     fmt::format("expected '{}' to close '{}' at col {}", close, open.text,
                                 open.begin + 1),
                     Note{At(open), fmt::format("'{}' opened here", open.text)});
  }

  static std::string Describe(const Token& t) {
    return t.kind == Token::kEnd ? "end of pipeline" : fmt::format("'{}'", t.text);
  }

  bool IsPunct(std::string_view p) const {
    return Peek().kind == Token::kPunct && Peek().text == p;
  }
  const Token& Peek() const { return tokens_[pos_]; }
  uint32_t Pos(size_t i) const { return static_cast<uint32_t>(i); }
  Span At(size_t begin, size_t end) const { return Span{file_, Pos(begin), Pos(end)}; }
  Span At(const Token& t) const { return Span{file_, t.begin, std::max(t.end, t.begin + 1)}; }
  absl::Status Error(const Token& t, std::string message) {
    return SpanError(At(t), std::move(message));
  }

  std::string_view text_;
  const PassRegistry& registry_;
  uint32_t file_ = 0;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

absl::Status BlameArgument(absl::Status status, std::string_view param,
                           std::optional<size_t> element) {
  if (status.ok()) return status;
  std::string blame(param);
  if (element) blame += fmt::format("\n{}", *element);
  status.SetPayload(kBlamePayload, absl::Cord(blame));
  return status;
}

absl::StatusOr<PassPtr> ParsePipeline(std::string_view text, const PassRegistry& registry) {
  return PipelineParser(text, registry).Parse();
}

}  // namespace carve
