// Matching parsed directives against an input, in the order LLVM's FileCheck
// does: CHECK-LABEL matches first and cuts the input into blocks; in a
// block each positive directive matches after the previous match (after its
// CHECK-DAG group, if any), CHECK-NEXT / -EMPTY / -SAME then check the line
// distance, and CHECK-NOTs are searched between the two matches.
#include <algorithm>
#include <map>
#include <optional>

#include "fmt/format.h"
#include "re2/re2.h"
#include "tools/cli/filecheck.h"
#include "tools/cli/filecheck_source.h"

namespace carve::filecheck {
namespace {

constexpr size_t kNpos = std::string_view::npos;

// The input with runs of spaces and tabs made one space and "\r\n" made
// "\n" (as FileCheck canonicalizes it), and where each character came from.
struct Canonical {
  std::string text;
  std::vector<size_t> origin;  // origin[i]: offset of text[i] in the input; one past the end too
};

Canonical Canonicalize(std::string_view in) {
  Canonical c;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\r' && i + 1 < in.size() && in[i + 1] == '\n') continue;
    c.origin.push_back(i);
    if (in[i] == ' ' || in[i] == '\t') {
      c.text.push_back(' ');
      while (i + 1 < in.size() && (in[i + 1] == ' ' || in[i + 1] == '\t')) ++i;
    } else {
      c.text.push_back(in[i]);
    }
  }
  c.origin.push_back(in.size());
  return c;
}

// Newlines in `s` ("\r\n" and "\n\r" count once), and where the first ends.
size_t CountNewlines(std::string_view s, size_t* first_end = nullptr) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\n' && s[i] != '\r') continue;
    if (i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r') && s[i] != s[i + 1]) ++i;
    if (++n == 1 && first_end) *first_end = i + 1;
  }
  return n;
}

struct Found {
  size_t pos = 0;
  size_t len = 0;
};

class Matcher {
 public:
  Matcher(const std::vector<CheckString>& checks, const SourceText& check_src,
          std::string_view input, std::string_view input_name)
      : checks_(checks),
        check_src_(check_src),
        input_src_(std::string(input_name), input),
        canon_(Canonicalize(input)) {}

  bool Run();
  const std::string& report() const { return report_; }

 private:
  size_t Check(const CheckString& cs, size_t lo, size_t hi, bool label_scan, size_t& len);
  size_t CheckDag(const CheckString& cs, size_t lo, size_t hi, std::vector<const Pattern*>& nots);
  bool CheckNots(const std::vector<const Pattern*>& nots, size_t lo, size_t hi);
  // nullopt: no match; `error` set: the pattern could not be matched.
  std::optional<Found> MatchPattern(const Pattern& p, size_t from, size_t to, std::string& error);
  std::optional<std::string> RegexOf(const Pattern& p, std::string& error) const;

  // Report pieces.
  void ErrorAt(const Pattern& p, std::string_view message) {
    size_t at = p.kind == Kind::kEof ? check_src_.text().size() : p.pattern_offset;
    report_ += check_src_.Render(at, "error", message);
  }
  void NoteAt(size_t canon_offset, std::string_view message) {
    report_ += input_src_.Render(canon_.origin[std::min(canon_offset, canon_.text.size())], "note",
                                 message);
  }
  void VariableNotes(const Pattern& p);
  void Context(size_t canon_offset);

  const std::vector<CheckString>& checks_;
  const SourceText& check_src_;
  SourceText input_src_;
  Canonical canon_;
  std::map<std::string, std::string> vars_;
  std::string report_;
};

// The RE2 text of a pattern that is not a plain literal, with the values of
// the variables it uses; nullopt (and `error`) for an undefined variable.
std::optional<std::string> Matcher::RegexOf(const Pattern& p, std::string& error) const {
  // (?m): ^ and $ match at line ends, and at the ends of the searched range
  // (FileCheck searches a substring with llvm::Regex::Newline).
  std::string re = "(?m)";
  for (const Piece& piece : p.pieces) {
    switch (piece.type) {
      case Piece::kLiteral:
        re += RE2::QuoteMeta(piece.text);
        break;
      case Piece::kRegex:
        re += "(?:" + piece.text + ")";
        break;
      case Piece::kDefine:
        re += "(" + piece.text + ")";
        break;
      case Piece::kUse: {
        auto it = vars_.find(piece.name);
        if (it == vars_.end()) {
          error = fmt::format("undefined variable: {}", piece.name);
          return std::nullopt;
        }
        re += RE2::QuoteMeta(it->second);
        break;
      }
      case Piece::kLine:
        re += std::to_string(piece.line);
        break;
    }
  }
  return re;
}

std::optional<Found> Matcher::MatchPattern(const Pattern& p, size_t from, size_t to,
                                           std::string& error) {
  std::string_view text = std::string_view(canon_.text).substr(0, to);
  if (p.kind == Kind::kEof) return Found{to, 0};
  if (p.kind == Kind::kEmpty) {
    // FileCheck's "(\n$)": a line end followed by another or by the end.
    for (size_t nl = text.find('\n', from); nl != kNpos; nl = text.find('\n', nl + 1)) {
      if (nl + 1 == text.size() || text[nl + 1] == '\n') return Found{nl + 1, 0};
    }
    return std::nullopt;
  }
  const bool literal = std::all_of(p.pieces.begin(), p.pieces.end(), [](const Piece& piece) {
    return piece.type == Piece::kLiteral || piece.type == Piece::kLine;
  });
  if (literal) {
    std::string s;
    for (const Piece& piece : p.pieces) {
      s += piece.type == Piece::kLiteral ? piece.text : std::to_string(piece.line);
    }
    size_t at = text.find(s, from);
    if (at == kNpos) return std::nullopt;
    return Found{at, s.size()};
  }
  std::optional<std::string> re = RegexOf(p, error);
  if (!re) return std::nullopt;
  RE2::Options options;
  options.set_longest_match(true);  // POSIX leftmost-longest, as llvm::Regex
  options.set_never_nl(true);       // no match spans a line end
  options.set_log_errors(false);
  RE2 compiled(*re, options);
  if (!compiled.ok()) {
    error = "invalid regex: " + compiled.error();
    return std::nullopt;
  }
  std::vector<re2::StringPiece> groups(size_t(compiled.NumberOfCapturingGroups()) + 1);
  re2::StringPiece searched(text.data() + from, text.size() - from);
  if (!compiled.Match(searched, 0, searched.size(), RE2::UNANCHORED, groups.data(),
                      int(groups.size()))) {
    return std::nullopt;
  }
  for (const Piece& piece : p.pieces) {
    if (piece.type == Piece::kDefine) {
      const re2::StringPiece& g = groups[size_t(piece.group)];
      vars_[piece.name] = std::string(g.data() ? g.data() : "", g.size());
    }
  }
  return Found{size_t(groups[0].data() - text.data()), groups[0].size()};
}

void Matcher::VariableNotes(const Pattern& p) {
  for (const Piece& piece : p.pieces) {
    if (piece.type != Piece::kUse) continue;
    auto it = vars_.find(piece.name);
    if (it != vars_.end()) {
      report_ += fmt::format("{}: note: with \"{}\" equal to \"{}\"\n", check_src_.name(),
                             piece.name, it->second);
    }
  }
}

void Matcher::Context(size_t canon_offset) {
  size_t origin = canon_.origin[std::min(canon_offset, canon_.text.size())];
  size_t line = input_src_.LineIndex(origin);
  size_t first = line >= 5 ? line - 5 : 0;
  size_t last = std::min(line + 5, input_src_.line_count() - 1);
  // A final newline leaves an empty last "line": not shown.
  if (last > line && last + 1 == input_src_.line_count() && input_src_.Line(last).empty()) --last;
  report_ += fmt::format("{} around line {}:\n", input_src_.name(), line + 1);
  for (size_t i = first; i <= last; ++i) {
    report_ += fmt::format("{} {:>5} | {}\n", i == line ? ">" : " ", i + 1, input_src_.Line(i));
  }
}

bool Matcher::CheckNots(const std::vector<const Pattern*>& nots, size_t lo, size_t hi) {
  bool failed = false;
  for (const Pattern* p : nots) {
    std::string error;
    std::optional<Found> m = MatchPattern(*p, lo, hi, error);
    if (!error.empty()) {
      ErrorAt(*p, error);
      failed = true;
    } else if (m) {
      ErrorAt(*p, fmt::format("{}: excluded string found in input", p->Description()));
      NoteAt(m->pos, "found here");
      VariableNotes(*p);
      Context(m->pos);
      failed = true;
    }
  }
  return failed;
}

size_t Matcher::CheckDag(const CheckString& cs, size_t lo, size_t hi,
                         std::vector<const Pattern*>& nots) {
  size_t start = lo;
  std::vector<Found> ranges;  // matches of the current group, sorted, disjoint
  for (size_t k = 0; k < cs.dag_not.size(); ++k) {
    const Pattern& p = cs.dag_not[k];
    if (p.kind == Kind::kNot) {
      nots.push_back(&p);
      continue;
    }
    size_t from = start;
    Found m;
    while (true) {
      std::string error;
      std::optional<Found> found = MatchPattern(p, from, hi, error);
      if (!found) {
        ErrorAt(p, error.empty()
                       ? fmt::format("{}: expected string not found in input", p.Description())
                       : error);
        NoteAt(from, "scanning from here");
        VariableNotes(p);
        Context(from);
        return kNpos;
      }
      m = *found;
      // The first earlier match that ends after this one starts.
      auto it = std::find_if(ranges.begin(), ranges.end(),
                             [&](const Found& r) { return m.pos < r.pos + r.len; });
      if (it == ranges.end() || it->pos >= m.pos + m.len) {
        ranges.insert(it, m);
        break;
      }
      from = it->pos + it->len;  // overlaps: look again after that match
    }
    const bool group_ends = k + 1 == cs.dag_not.size() || cs.dag_not[k + 1].kind == Kind::kNot;
    if (group_ends) {
      if (!nots.empty()) {
        if (CheckNots(nots, start, ranges.front().pos)) return kNpos;
        nots.clear();
      }
      start = ranges.back().pos + ranges.back().len;
      ranges.clear();
    }
  }
  return start;
}

size_t Matcher::Check(const CheckString& cs, size_t lo, size_t hi, bool label_scan, size_t& len) {
  const Pattern& p = cs.pattern;
  size_t last = lo;
  std::vector<const Pattern*> nots;
  if (!label_scan) {
    last = CheckDag(cs, lo, hi, nots);
    if (last == kNpos) return kNpos;
  }
  size_t end = last, first = last;
  for (int k = 1; k <= p.count; ++k) {
    std::string error;
    std::optional<Found> m = MatchPattern(p, end, hi, error);
    if (!m) {
      std::string message =
          error.empty() ? fmt::format("{}: expected string not found in input", p.Description())
                        : error;
      if (error.empty() && p.count > 1) message += fmt::format(" ({} out of {})", k, p.count);
      ErrorAt(p, message);
      NoteAt(end, "scanning from here");
      VariableNotes(p);
      Context(end);
      return kNpos;
    }
    if (k == 1) first = m->pos;
    end = m->pos + m->len;
  }
  len = end - first;
  if (label_scan) return first;
  std::string_view skipped = std::string_view(canon_.text).substr(last, first - last);
  size_t first_nl = 0;
  const size_t newlines = CountNewlines(skipped, &first_nl);
  std::string why;
  if (p.kind == Kind::kNext || p.kind == Kind::kEmpty) {
    if (newlines == 0) {
      why = fmt::format("{}: is on the same line as previous match", p.Description());
    } else if (newlines != 1) {
      why = fmt::format("{}: is not on the line after the previous match", p.Description());
    }
  } else if (p.kind == Kind::kSame && newlines != 0) {
    why = fmt::format("{}: is not on the same line as the previous match", p.Description());
  }
  if (!why.empty()) {
    ErrorAt(p, why);
    NoteAt(first, "'next' match was here");
    NoteAt(last, "previous match ended here");
    if (newlines > 1) NoteAt(last + first_nl, "non-matching line after previous match is here");
    Context(first);
    return kNpos;
  }
  if (CheckNots(nots, last, first)) return kNpos;
  return first;
}

bool Matcher::Run() {
  size_t buffer = 0;
  const size_t end = canon_.text.size();
  size_t i = 0, j = 0;
  const size_t e = checks_.size();
  bool failed = false;
  while (true) {
    const size_t region_lo = buffer;
    size_t region_hi = end;
    if (j != e) {
      if (checks_[j].pattern.kind != Kind::kLabel) {
        ++j;
        continue;
      }
      size_t len = 0;
      size_t pos = Check(checks_[j], buffer, end, /*label_scan=*/true, len);
      if (pos == kNpos) return false;
      region_hi = buffer = pos + len;
      ++j;
    }
    size_t cur = region_lo;
    for (; i != j; ++i) {
      size_t len = 0;
      size_t pos = Check(checks_[i], cur, region_hi, /*label_scan=*/false, len);
      if (pos == kNpos) {
        failed = true;
        i = j;
        break;
      }
      cur = pos + len;
    }
    if (j == e) break;
  }
  return !failed;
}

}  // namespace

std::string CheckFile::Match(std::string_view input, std::string_view input_name) const {
  SourceText check_src(name_, text_);
  Matcher matcher(checks_, check_src, input, input_name);
  if (matcher.Run()) return "";
  return matcher.report();
}

std::string Pattern::Description() const {
  std::string d = prefix;
  switch (kind) {
    case Kind::kPlain:
      if (count > 1) d += "-COUNT";
      break;
    case Kind::kNext:
      d += "-NEXT";
      break;
    case Kind::kSame:
      d += "-SAME";
      break;
    case Kind::kNot:
      d += "-NOT";
      break;
    case Kind::kDag:
      d += "-DAG";
      break;
    case Kind::kLabel:
      d += "-LABEL";
      break;
    case Kind::kEmpty:
      d += "-EMPTY";
      break;
    case Kind::kEof:
      return "implicit EOF";
  }
  if (literal) d += "{LITERAL}";
  return d;
}

}  // namespace carve::filecheck
