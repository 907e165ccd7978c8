// Parsing a check file into directives: the prefix scan and suffix rules of
// LLVM's FileCheck (a prefix counts only when not preceded by a word
// character; RUN: and COM: lines are comments), then each pattern split
// into literal, regex, variable and @LINE pieces. Matching is in
// filecheck_match.cc.

#include "tools/cli/filecheck.h"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>

#include "absl/status/status.h"
#include "fmt/format.h"
#include "re2/re2.h"
#include "tools/cli/filecheck_source.h"

namespace carve::filecheck {
namespace {

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }

// Runs of spaces and tabs become one space, as FileCheck canonicalizes both
// the check file and the input.
std::string CollapseSpace(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' || s[i] == '\t') {
      out.push_back(' ');
      while (i + 1 < s.size() && (s[i + 1] == ' ' || s[i + 1] == '\t')) ++i;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// What follows a prefix.
enum class Found { kNone, kCheck, kComment, kMisspelled, kBadNot, kBadCount, kBadSuffix };

struct TypeResult {
  Found found = Found::kNone;
  Kind kind = Kind::kPlain;
  int count = 1;
  bool literal = false;
  size_t after = 0;  // offset just past the directive's ':'
};

class Parser {
 public:
  Parser(std::string name, std::string_view text, const CheckOptions& options)
      : src_(std::move(name), text), text_(text), options_(options) {}

  absl::StatusOr<std::vector<CheckString>> Run();

 private:
  absl::Status Error(size_t offset, std::string_view message) const {
    return absl::InvalidArgumentError(src_.Render(offset, "error", message));
  }
  absl::Status ValidatePrefixes();
  TypeResult FindCheckType(size_t at, std::string_view prefix, bool is_comment) const;
  TypeResult ConsumeModifiers(TypeResult r, size_t rest) const;
  absl::Status StrictCheck(size_t at, std::string_view prefix, Found found) const;
  // The directive at `at` with its pattern text [start, eol); checks where
  // it may stand (`after_positive`: a CHECK, -NEXT, ... came before).
  absl::StatusOr<Pattern> MakePattern(size_t at, const std::string& prefix, const TypeResult& type,
                                      size_t start, size_t eol, bool after_positive);
  absl::Status ParsePattern(std::string_view raw, size_t raw_offset, Pattern& p);
  // The pieces of a pattern with {{regex}} or [[variable]] blocks.
  absl::Status ParsePieces(std::string_view s, size_t raw_offset, Pattern& p);
  absl::Status ParseBlock(std::string_view block, size_t offset, Pattern& p,
                          std::set<std::string>& defined_here, int& groups);
  // Whether the prefix at `at` starts a directive (a check or a comment);
  // false for a word that only begins like one, an error for a malformed
  // suffix (or, when strict, a misspelt one).
  absl::StatusOr<bool> IsDirective(size_t at, std::string_view prefix, bool is_comment,
                                   const TypeResult& type) const;
  // FileCheck's error for check prefixes no directive used.
  absl::Status UnusedPrefixesError(const std::set<std::string>& unused) const;
  // The end of the input, where trailing CHECK-DAG / -NOT directives apply.
  Pattern EofPattern() const;

  SourceText src_;
  std::string_view text_;
  const CheckOptions& options_;
  std::vector<std::string> check_prefixes_, comment_prefixes_;
};

absl::Status Parser::ValidatePrefixes() {
  check_prefixes_ = options_.check_prefixes;
  if (check_prefixes_.empty()) check_prefixes_ = {"CHECK"};
  comment_prefixes_ = options_.comment_prefixes;
  if (comment_prefixes_.empty()) comment_prefixes_ = {"COM", "RUN"};
  std::set<std::string> seen;
  for (const auto* list : {&check_prefixes_, &comment_prefixes_}) {
    for (const std::string& p : *list) {
      if (p.empty() || !IsNameStart(p[0]) || p[0] == '_' ||
          !std::all_of(p.begin(), p.end(), IsWordChar)) {
        return absl::InvalidArgumentError(fmt::format(
            "error: supplied prefix must start with a letter and contain only alphanumeric "
            "characters, hyphens, and underscores: '{}'\n",
            p));
      }
      if (!seen.insert(p).second) {
        return absl::InvalidArgumentError(fmt::format(
            "error: supplied prefix must be unique among check and comment prefixes: '{}'\n", p));
      }
    }
  }
  return absl::OkStatus();
}

TypeResult Parser::ConsumeModifiers(TypeResult r, size_t rest) const {
  std::string_view t = text_;
  if (rest < t.size() && t[rest] == ':') {
    r.after = rest + 1;
    return r;
  }
  if (rest >= t.size() || t[rest] != '{') return TypeResult{Found::kBadSuffix};
  size_t i = rest + 1;
  auto skip_space = [&] {
    while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
  };
  do {
    skip_space();
    if (t.substr(i).starts_with("LITERAL")) {
      r.literal = true;
      i += 7;
    } else {
      return TypeResult{Found::kBadSuffix};
    }
    skip_space();
  } while (i < t.size() && t[i] == ',' && ++i);
  if (!t.substr(i).starts_with("}:")) return TypeResult{Found::kBadSuffix};
  r.after = i + 2;
  return r;
}

TypeResult Parser::FindCheckType(size_t at, std::string_view prefix, bool is_comment) const {
  std::string_view t = text_;
  size_t rest = at + prefix.size();
  if (rest >= t.size()) return {};
  if (is_comment) {
    if (t[rest] != ':') return {};
    return TypeResult{Found::kComment, Kind::kPlain, 1, false, rest + 1};
  }
  TypeResult r{Found::kCheck};
  if (t[rest] == ':' || t[rest] == '{') return ConsumeModifiers(r, rest);
  // FileCheck 14 skips `CHECK_NEXT:`; later versions call it misspelled.
  if (t[rest] == '_') return TypeResult{Found::kMisspelled};
  if (t[rest] != '-') return {};
  std::string_view s = t.substr(rest + 1);
  if (s.starts_with("COUNT-")) {
    size_t i = rest + 1 + 6;
    int64_t n = 0;
    size_t digits = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') {
      n = std::min<int64_t>(n * 10 + (t[i] - '0'), int64_t(INT32_MAX) + 1);
      ++i;
      ++digits;
    }
    if (digits == 0 || n <= 0 || n > INT32_MAX || i >= t.size() || (t[i] != ':' && t[i] != '{')) {
      return TypeResult{Found::kBadCount, Kind::kPlain, 1, false, i};
    }
    r.count = int(n);
    return ConsumeModifiers(r, i);
  }
  for (std::string_view bad : {"DAG-NOT:", "NOT-DAG:", "NEXT-NOT:", "NOT-NEXT:", "SAME-NOT:",
                               "NOT-SAME:", "EMPTY-NOT:", "NOT-EMPTY:"}) {
    if (s.starts_with(bad)) return TypeResult{Found::kBadNot, Kind::kPlain, 1, false, rest + 1};
  }
  static const std::pair<std::string_view, Kind> kSuffixes[] = {
      {"NEXT", Kind::kNext}, {"SAME", Kind::kSame},   {"NOT", Kind::kNot},
      {"DAG", Kind::kDag},   {"LABEL", Kind::kLabel}, {"EMPTY", Kind::kEmpty}};
  for (auto [suffix, kind] : kSuffixes) {
    if (s.starts_with(suffix)) {
      r.kind = kind;
      return ConsumeModifiers(r, rest + 1 + suffix.size());
    }
  }
  return TypeResult{Found::kBadSuffix};
}

// Where the `]]` closing a substitution block starts in `s` (which follows
// the `[[`), skipping nested brackets and backslash escapes, as FileCheck.
// npos when there is none; `unbalanced` when a ']' closes nothing.
size_t FindBlockEnd(std::string_view s, bool& unbalanced) {
  size_t depth = 0;
  for (size_t i = 0; i < s.size();) {
    if (depth == 0 && s.substr(i).starts_with("]]")) return i;
    if (s[i] == '\\') {
      i += 2;
      continue;
    }
    if (s[i] == '[') ++depth;
    if (s[i] == ']') {
      if (depth == 0) {
        unbalanced = true;
        return i;
      }
      --depth;
    }
    ++i;
  }
  return std::string_view::npos;
}

// Parses `@LINE`, `@LINE+N` or `@LINE-N` (spaces allowed around the sign).
std::optional<int> ParseLineExpr(std::string_view s, int line) {
  auto trim = [](std::string_view v) {
    while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
  };
  s = trim(s);
  if (!s.starts_with("@LINE")) return std::nullopt;
  s = trim(s.substr(5));
  if (s.empty()) return line;
  if (s[0] != '+' && s[0] != '-') return std::nullopt;
  int sign = s[0] == '+' ? 1 : -1;
  s = trim(s.substr(1));
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return line + sign * std::stoi(std::string(s));
}

absl::Status Parser::ParseBlock(std::string_view block, size_t offset, Pattern& p,
                                std::set<std::string>& defined_here, int& groups) {
  if (block.starts_with("#")) {
    std::optional<int> line = ParseLineExpr(block.substr(1), p.line);
    if (!line) {
      return Error(offset,
                   "numeric substitution blocks other than [[#@LINE+N]] are not "
                   "supported by carve's FileCheck");
    }
    p.pieces.push_back(Piece{Piece::kLine, "", "", *line});
    return absl::OkStatus();
  }
  size_t colon = block.find(':');
  std::string_view name = block.substr(0, colon);
  if (size_t sp = name.find_first_of(" \t"); sp != std::string_view::npos) {
    return Error(offset + sp, "unexpected whitespace");
  }
  if (name.starts_with("@")) {
    if (colon != std::string_view::npos) {
      return Error(offset, "invalid name in string variable definition");
    }
    std::optional<int> line = ParseLineExpr(block, p.line);
    if (!line) return Error(offset, fmt::format("invalid pseudo variable '{}'", block));
    p.pieces.push_back(Piece{Piece::kLine, "", "", *line});
    return absl::OkStatus();
  }
  std::string_view bare = name.starts_with("$") ? name.substr(1) : name;
  if (bare.empty() || !IsNameStart(bare[0]) || !std::all_of(bare.begin(), bare.end(), IsNameChar)) {
    return Error(offset, colon == std::string_view::npos
                             ? "invalid name in string variable use"
                             : "invalid name in string variable definition");
  }
  if (colon == std::string_view::npos) {
    if (defined_here.count(std::string(name))) {
      return Error(offset, fmt::format("'[[{}]]' uses a variable defined on the same line: a "
                                       "back-reference, which carve's FileCheck (RE2) lacks",
                                       name));
    }
    p.pieces.push_back(Piece{Piece::kUse, "", std::string(name)});
    return absl::OkStatus();
  }
  std::string_view re = block.substr(colon + 1);
  RE2 compiled(re, RE2::Quiet);
  if (!compiled.ok()) return Error(offset + colon + 1, "invalid regex: " + compiled.error());
  Piece piece{Piece::kDefine, std::string(re), std::string(name)};
  piece.group = ++groups;
  groups += compiled.NumberOfCapturingGroups();
  defined_here.insert(std::string(name));
  p.pieces.push_back(std::move(piece));
  return absl::OkStatus();
}

absl::Status Parser::ParsePattern(std::string_view raw, size_t raw_offset, Pattern& p) {
  while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t')) raw.remove_suffix(1);
  if (raw.empty() && p.kind != Kind::kEmpty) {
    return Error(raw_offset, fmt::format("found empty check string with prefix '{}:'", p.prefix));
  }
  if (!raw.empty() && p.kind == Kind::kEmpty) {
    return Error(
        raw_offset,
        fmt::format("found non-empty check string for empty check with prefix '{}:'", p.prefix));
  }
  if (raw.empty()) return absl::OkStatus();
  // Offsets below are into the collapsed text; they differ from the file's
  // columns only after a run of several spaces.
  std::string text = CollapseSpace(raw);
  std::string_view s = text;
  if (p.literal || s.size() < 2 ||
      (s.find("{{") == std::string_view::npos && s.find("[[") == std::string_view::npos)) {
    p.pieces.push_back(Piece{Piece::kLiteral, text});
    return absl::OkStatus();
  }
  return ParsePieces(s, raw_offset, p);
}

absl::Status Parser::ParsePieces(std::string_view s, size_t raw_offset, Pattern& p) {
  std::set<std::string> defined_here;
  int groups = 0;
  size_t at = 0;
  while (at < s.size()) {
    std::string_view rest = s.substr(at);
    if (rest.starts_with("{{")) {
      size_t end = rest.find("}}");
      if (end == std::string_view::npos) {
        return Error(raw_offset + at, "found start of regex string with no end '}}'");
      }
      std::string_view re = rest.substr(2, end - 2);
      RE2 compiled(re, RE2::Quiet);
      if (!compiled.ok()) return Error(raw_offset + at + 2, "invalid regex: " + compiled.error());
      groups += compiled.NumberOfCapturingGroups();
      p.pieces.push_back(Piece{Piece::kRegex, std::string(re)});
      at += end + 2;
      continue;
    }
    if (rest.starts_with("[[") && !rest.starts_with("[[[")) {
      bool unbalanced = false;
      size_t end = FindBlockEnd(rest.substr(2), unbalanced);
      if (unbalanced) {
        return Error(raw_offset + at + 2 + end, "missing closing \"]\" for regex variable");
      }
      if (end == std::string_view::npos) {
        return Error(raw_offset + at, "Invalid substitution block, no ]] found");
      }
      absl::Status s2 =
          ParseBlock(rest.substr(2, end), raw_offset + at + 2, p, defined_here, groups);
      if (!s2.ok()) return s2;
      at += end + 4;
      continue;
    }
    size_t next = std::min(rest.find("{{", 1), rest.find("[[", 1));
    if (next == std::string_view::npos) next = rest.size();
    std::string literal(rest.substr(0, next));
    if (!p.pieces.empty() && p.pieces.back().type == Piece::kLiteral) {
      p.pieces.back().text += literal;
    } else {
      p.pieces.push_back(Piece{Piece::kLiteral, literal});
    }
    at += next;
  }
  return absl::OkStatus();
}

// The word (letters, digits, '-', '_') starting at `at`.
std::string_view WordAt(std::string_view t, size_t at) {
  size_t e = at;
  while (e < t.size() && IsWordChar(t[e])) ++e;
  return t.substr(at, e - at);
}

// In strict mode, what FileCheck would skip but a writer meant as a
// directive: `CHECK-FOO:`, `CHECK_NEXT:`, `CHECK :`, `CHECK{FOO}:`, and a
// directive name without its colon (`CHECK-NEXT foo`).
absl::Status Parser::StrictCheck(size_t at, std::string_view prefix, Found found) const {
  std::string_view word = WordAt(text_, at);
  size_t i = at + word.size();
  size_t after_word = i;
  while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t')) ++i;
  const bool colon_follows = i < text_.size() && (text_[i] == ':' || text_[i] == '{');
  if (word == prefix) {
    if (colon_follows && i > after_word) {
      return Error(at, fmt::format("space between '{}' and ':'", prefix));
    }
    if (colon_follows) return Error(at, fmt::format("malformed modifiers after '{}'", prefix));
    return absl::OkStatus();
  }
  // `CHECKS:` is another word (near misses are the golden runner's lint).
  if (word[prefix.size()] != '-' && word[prefix.size()] != '_') return absl::OkStatus();
  std::string_view suffix = word.substr(prefix.size() + 1);
  static const RE2 kKnown("NEXT|SAME|NOT|DAG|LABEL|EMPTY|COUNT-[0-9]+");
  const bool known = RE2::FullMatch(suffix, kKnown);
  if (found == Found::kMisspelled && (colon_follows || known)) {
    return Error(at, fmt::format("misspelled directive '{}' (the separator is '-')", word));
  }
  if (colon_follows && known && i > after_word) {
    return Error(at, fmt::format("space between '{}' and ':'", word));
  }
  if (colon_follows) {
    return Error(at, fmt::format("unknown directive '{}' (known: {}:, {}-NEXT:, -SAME:, -NOT:, "
                                 "-DAG:, -LABEL:, -EMPTY:, -COUNT-N:)",
                                 word, prefix, prefix));
  }
  if (known && found == Found::kBadSuffix) {
    return Error(at, fmt::format("missing ':' after '{}'", word));
  }
  return absl::OkStatus();
}

// Finds the prefixes in the check text in order: at each position the
// longest prefix wins (`CHECK-A` over `CHECK`), and each prefix's next
// occurrence is searched again only once passed, so a scan stays linear.
class PrefixScanner {
 public:
  PrefixScanner(std::string_view text, const std::vector<std::string>& checks,
                const std::vector<std::string>& comments)
      : text_(text) {
    for (const std::string& p : checks) prefixes_.push_back({p, false});
    for (const std::string& p : comments) prefixes_.push_back({p, true});
    std::stable_sort(prefixes_.begin(), prefixes_.end(),
                     [](const auto& a, const auto& b) { return a.text.size() > b.text.size(); });
    for (Prefix& p : prefixes_) p.next = text_.find(p.text);
  }

  struct Prefix {
    std::string text;
    bool comment = false;
    size_t next = 0;
  };

  // The first prefix at or after `pos` (and where it is), or nullptr.
  const Prefix* Next(size_t pos, size_t& at) {
    const Prefix* found = nullptr;
    at = std::string_view::npos;
    for (Prefix& p : prefixes_) {
      if (p.next != std::string_view::npos && p.next < pos) p.next = text_.find(p.text, pos);
      if (p.next < at) {
        at = p.next;
        found = &p;
      }
    }
    return found;
  }

 private:
  std::string_view text_;
  std::vector<Prefix> prefixes_;
};

absl::StatusOr<Pattern> Parser::MakePattern(size_t at, const std::string& prefix,
                                            const TypeResult& type, size_t start, size_t eol,
                                            bool after_positive) {
  Pattern p;
  p.kind = type.kind;
  p.count = type.count;
  p.literal = type.literal;
  p.prefix = prefix;
  p.line = int(src_.LineIndex(at)) + 1;
  p.prefix_offset = at;
  p.pattern_offset = start;
  absl::Status parsed = ParsePattern(text_.substr(start, eol - start), start, p);
  if (!parsed.ok()) return parsed;
  if (p.kind == Kind::kLabel &&
      std::any_of(p.pieces.begin(), p.pieces.end(), [](const Piece& piece) {
        return piece.type == Piece::kDefine || piece.type == Piece::kUse;
      })) {
    return Error(at, fmt::format("found '{}-LABEL:' with variable definition or use", p.prefix));
  }
  if ((p.kind == Kind::kNext || p.kind == Kind::kSame || p.kind == Kind::kEmpty) &&
      !after_positive) {
    std::string_view which = p.kind == Kind::kNext   ? "NEXT"
                             : p.kind == Kind::kSame ? "SAME"
                                                     : "EMPTY";
    return Error(
        at, fmt::format("found '{}-{}' without previous '{}: line", p.prefix, which, p.prefix));
  }
  return p;
}

absl::StatusOr<bool> Parser::IsDirective(size_t at, std::string_view prefix, bool is_comment,
                                         const TypeResult& type) const {
  switch (type.found) {
    case Found::kNone:
    case Found::kBadSuffix:
    case Found::kMisspelled:
      if (options_.strict && !is_comment) {
        absl::Status bad = StrictCheck(at, prefix, type.found);
        if (!bad.ok()) return bad;
      }
      return false;
    case Found::kBadNot:
      return Error(type.after, fmt::format("unsupported -NOT combo on prefix '{}'", prefix));
    case Found::kBadCount:
      return Error(type.after,
                   fmt::format("invalid count in -COUNT specification on prefix '{}'", prefix));
    case Found::kComment:
    case Found::kCheck:
      break;
  }
  return true;
}

absl::Status Parser::UnusedPrefixesError(const std::set<std::string>& unused) const {
  std::string list;
  for (const std::string& p : unused) list += fmt::format("{}'{}:'", list.empty() ? "" : ", ", p);
  return absl::InvalidArgumentError(
      fmt::format("{}: error: no check strings found with prefix{} {}\n", src_.name(),
                  unused.size() > 1 ? "es" : "", list));
}

Pattern Parser::EofPattern() const {
  Pattern eof;
  eof.kind = Kind::kEof;
  eof.prefix = check_prefixes_.front();
  eof.line = int(src_.line_count()) + 1;
  eof.prefix_offset = eof.pattern_offset = text_.size();
  return eof;
}

absl::StatusOr<std::vector<CheckString>> Parser::Run() {
  absl::Status valid = ValidatePrefixes();
  if (!valid.ok()) return valid;
  PrefixScanner scanner(text_, check_prefixes_, comment_prefixes_);
  std::set<std::string> unused(check_prefixes_.begin(), check_prefixes_.end());
  std::vector<CheckString> checks;
  std::vector<Pattern> dag_not;
  size_t pos = 0;
  size_t at = 0;
  while (const PrefixScanner::Prefix* prefix = scanner.Next(pos, at)) {
    // A prefix counts only at the start of a word; skip the rest of it.
    pos = at + WordAt(text_, at).size();
    if (at > 0 && IsWordChar(text_[at - 1])) continue;
    TypeResult type = FindCheckType(at, prefix->text, prefix->comment);
    absl::StatusOr<bool> directive = IsDirective(at, prefix->text, prefix->comment, type);
    if (!directive.ok()) return directive.status();
    if (!*directive) continue;
    size_t start = type.after;
    while (start < text_.size() && (text_[start] == ' ' || text_[start] == '\t')) ++start;
    size_t eol = text_.find_first_of("\n\r", start);
    if (eol == std::string_view::npos) eol = text_.size();
    pos = eol;
    if (type.found == Found::kComment) continue;
    unused.erase(prefix->text);
    absl::StatusOr<Pattern> p = MakePattern(at, prefix->text, type, start, eol, !checks.empty());
    if (!p.ok()) return p.status();
    if (p->kind == Kind::kDag || p->kind == Kind::kNot) {
      dag_not.push_back(*std::move(p));
      continue;
    }
    checks.push_back(CheckString{*std::move(p), std::move(dag_not)});
    dag_not.clear();
  }
  if (!unused.empty() && !options_.allow_unused_prefixes) return UnusedPrefixesError(unused);
  // CHECK-DAG / -NOT at the end apply up to the end of the input.
  if (!dag_not.empty()) checks.push_back(CheckString{EofPattern(), std::move(dag_not)});
  return checks;
}

}  // namespace

absl::StatusOr<CheckFile> CheckFile::Parse(std::string name, std::string_view text,
                                           const CheckOptions& options) {
  CheckFile file;
  file.name_ = std::move(name);
  file.text_ = std::string(text);
  Parser parser(file.name_, file.text_, options);
  absl::StatusOr<std::vector<CheckString>> checks = parser.Run();
  if (!checks.ok()) return checks.status();
  file.checks_ = std::move(*checks);
  return file;
}

int EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<int>> d(a.size() + 1, std::vector<int>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = int(i);
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = int(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace carve::filecheck
