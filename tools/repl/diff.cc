#include "tools/repl/diff.h"

#include <algorithm>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "fmt/format.h"

namespace carve::repl {
namespace {

enum class Op : uint8_t { kEqual, kDelete, kInsert };

// Myers' greedy shortest edit script between a[0..n) and b[0..m) (lines as
// integer ids); false when it needs more than `max_d` edits. The trace keeps
// only the diagonals -d..d of each round: O(D^2) memory.
bool Myers(const uint32_t* a, long n, const uint32_t* b, long m, long max_d, std::vector<Op>& ops) {
  const long offset = max_d + 1;
  std::vector<long> v(size_t(2 * offset + 1), 0);
  std::vector<std::vector<long>> trace;  // trace[d][k + d] = v[k] before round d
  auto at = [&](long d, long k) { return trace[size_t(d)][size_t(k + d)]; };
  for (long d = 0; d <= max_d; ++d) {
    trace.emplace_back(v.begin() + (offset - d), v.begin() + (offset + d + 1));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[k - 1 + offset] < v[k + 1 + offset]))
                   ? v[k + 1 + offset]
                   : v[k - 1 + offset] + 1;
      long y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      v[k + offset] = x;
      if (x < n || y < m) continue;
      // Walk the trace back to the start, collecting the edits.
      std::vector<Op> rev;
      long cx = n, cy = m;
      for (long dd = d; dd > 0; --dd) {
        long ck = cx - cy;
        // Round dd read round dd-1's values: trace[dd] holds them for
        // diagonals -(dd)..dd, of which -(dd-1)..dd-1 were set.
        bool down = ck == -dd || (ck != dd && at(dd, ck - 1) < at(dd, ck + 1));
        long pk = down ? ck + 1 : ck - 1;
        long px = at(dd, pk), py = px - pk;
        long sx = down ? px : px + 1, sy = down ? py + 1 : py;
        while (cx > sx && cy > sy) {
          rev.push_back(Op::kEqual);
          --cx, --cy;
        }
        rev.push_back(down ? Op::kInsert : Op::kDelete);
        cx = px, cy = py;
      }
      while (cx > 0 && cy > 0) {
        rev.push_back(Op::kEqual);
        --cx, --cy;
      }
      ops.insert(ops.end(), rev.rbegin(), rev.rend());
      return true;
    }
  }
  return false;
}

std::vector<Op> EditScript(const DiffSide& a, const DiffSide& b, size_t max_edits) {
  size_t n = a.lines.size(), m = b.lines.size();
  size_t pre = 0;
  while (pre < n && pre < m && a.lines[pre] == b.lines[pre]) ++pre;
  size_t suf = 0;
  while (suf < n - pre && suf < m - pre && a.lines[n - 1 - suf] == b.lines[m - 1 - suf]) ++suf;
  std::vector<Op> ops(pre, Op::kEqual);
  long mn = long(n - pre - suf), mm = long(m - pre - suf);
  // Lines as ids, so the inner loop compares integers.
  absl::flat_hash_map<std::string_view, uint32_t> ids;
  std::vector<uint32_t> ia, ib;
  for (long i = 0; i < mn; ++i)
    ia.push_back(ids.try_emplace(a.lines[pre + size_t(i)], ids.size()).first->second);
  for (long i = 0; i < mm; ++i)
    ib.push_back(ids.try_emplace(b.lines[pre + size_t(i)], ids.size()).first->second);
  if (!Myers(ia.data(), mn, ib.data(), mm, long(max_edits), ops)) {
    ops.insert(ops.end(), size_t(mn), Op::kDelete);
    ops.insert(ops.end(), size_t(mm), Op::kInsert);
  }
  ops.insert(ops.end(), suf, Op::kEqual);
  return ops;
}

// "l,n" of a hunk side (diff -u: an empty side names the line before it).
std::string Range(size_t start, size_t count) {
  if (count == 1) return fmt::format("{}", start + 1);
  return fmt::format("{},{}", count == 0 ? start : start + 1, count);
}

}  // namespace

std::string UnifiedDiff(const DiffSide& a, const DiffSide& b, int context, std::string_view section,
                        size_t max_edits) {
  std::vector<Op> ops = EditScript(a, b, max_edits);
  const size_t ctx = size_t(std::max(context, 0));
  std::string out;
  size_t i = 0;
  size_t scan = 0, ai = 0, bi = 0;  // line positions of ops[scan] on each side
  while (i < ops.size()) {
    if (ops[i] == Op::kEqual) {
      ++i;
      continue;
    }
    // A hunk: from `ctx` lines before this change to `ctx` lines after the
    // last change that is at most 2*ctx equal lines from the previous one.
    size_t begin = i >= ctx ? i - ctx : 0;
    size_t end = i;
    while (end < ops.size()) {
      if (ops[end] != Op::kEqual) {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < ops.size() && ops[run] == Op::kEqual) ++run;
      if (run == ops.size() || run - end > 2 * ctx) {
        end = std::min(run, end + ctx);
        break;
      }
      end = run;
    }
    for (; scan < begin; ++scan) {
      if (ops[scan] != Op::kInsert) ++ai;
      if (ops[scan] != Op::kDelete) ++bi;
    }
    std::string body;
    size_t an = 0, bn = 0;
    for (size_t k = begin; k < end; ++k) {
      switch (ops[k]) {
        case Op::kEqual:
          body += fmt::format(" {}\n", a.lines[ai + an]);
          ++an, ++bn;
          break;
        case Op::kDelete:
          body += fmt::format("-{}\n", a.lines[ai + an]);
          ++an;
          break;
        case Op::kInsert:
          body += fmt::format("+{}\n", b.lines[bi + bn]);
          ++bn;
          break;
      }
    }
    out += fmt::format("@@ -{} +{} @@{}{}\n", Range(a.first_line + ai, an),
                       Range(b.first_line + bi, bn), section.empty() ? "" : " ", section);
    out += body;
    i = end;
  }
  return out;
}

}  // namespace carve::repl
