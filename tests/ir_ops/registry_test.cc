// The op registry against its contract: spec/ops.md §1.1 (parsed from the
// spec itself, so the table and the registry cannot drift), the extra ops
// the spec names, every op the TVM-printed corpus uses, and the flags.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/op.h"
#include "tests/common/file_util.h"

namespace carve {
namespace {

using testing_util::ReadFile;

std::string Trim(std::string s) {
  size_t b = s.find_first_not_of(' ');
  size_t e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The `...` tokens of `text`.
std::vector<std::string> Backticked(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find('`', pos)) != std::string::npos) {
    size_t end = text.find('`', pos + 1);
    if (end == std::string::npos) break;
    out.push_back(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
  }
  return out;
}

std::vector<std::string> Columns(const std::string& row) {
  std::vector<std::string> cols;
  std::stringstream ss(row);
  std::string col;
  while (std::getline(ss, col, '|')) cols.push_back(Trim(col));
  // A row "| a | b |" splits into "", "a", "b".
  if (!cols.empty() && cols.front().empty()) cols.erase(cols.begin());
  return cols;
}

// The rows of the §1.1 registry index table.
std::vector<std::vector<std::string>> RegistryTable() {
  std::string spec = ReadFile(std::filesystem::path(CARVE_SHARED_DIR) / "spec" / "ops.md");
  size_t start = spec.find("### 1.1 Registry index");
  std::vector<std::vector<std::string>> rows;
  if (start == std::string::npos) return rows;
  std::stringstream ss(spec.substr(start));
  std::string line;
  while (std::getline(ss, line)) {
    if (line.starts_with("---")) break;
    if (line.starts_with("| `")) rows.push_back(Columns(line));
  }
  return rows;
}

OpPattern PatternFromLetter(const std::string& pat) {
  if (pat.starts_with("E")) return OpPattern::kElemWise;
  if (pat.starts_with("B")) return OpPattern::kBroadcast;
  if (pat.starts_with("I")) return OpPattern::kInjective;
  if (pat.starts_with("R")) return OpPattern::kCommReduce;
  if (pat.starts_with("O")) return OpPattern::kOutEWiseFusable;
  if (pat.starts_with("X")) return OpPattern::kOpaque;
  return OpPattern::kNone;
}

std::string JoinArgs(const OpInfo* op) {
  std::string out;
  for (std::string_view a : op->arg_names) out += (out.empty() ? "" : ", ") + std::string(a);
  return out;
}

TEST(RegistryTest, SpecTableIsParsed) { EXPECT_GE(RegistryTable().size(), 50u); }

TEST(RegistryTest, EveryRowOfTheSpecTableMatches) {
  for (const auto& cols : RegistryTable()) {
    ASSERT_GE(cols.size(), 6u) << cols[0];
    std::vector<std::string> names = Backticked(cols[0]);
    std::vector<std::string> keys;
    for (const std::string& k : Backticked(cols[3])) {
      if (k.find("Attrs") != std::string::npos) {
        keys.push_back(k.starts_with("relay.attrs.") ? k : "relay.attrs." + k);
      }
    }
    for (size_t i = 0; i < names.size(); ++i) {
      const OpInfo* op = FindOp(names[i]);
      ASSERT_NE(op, nullptr) << names[i] << " is not registered";
      EXPECT_EQ(op->num_inputs, std::stoi(cols[1])) << names[i];
      EXPECT_EQ(op->support_level, std::stoi(cols[5])) << names[i];
      EXPECT_EQ(op->pattern, PatternFromLetter(cols[4])) << names[i];
      std::string args = cols[2].substr(0, cols[2].find(" ("));
      if (args.starts_with("(")) {
        // "(metadata order differs, §14)": checked in QnnArgNamesFollowTheRegistry.
      } else if (args == "—") {
        EXPECT_TRUE(op->arg_names.empty()) << names[i];
      } else if (!args.empty()) {
        EXPECT_EQ(JoinArgs(op), args) << names[i];
      }
      if (cols[3].starts_with("—")) {
        EXPECT_TRUE(op->attrs == nullptr || !op->attrs_type_registered) << names[i];
      } else if (keys.size() == 1 || keys.size() == names.size()) {
        EXPECT_EQ(op->attrs_type_key, keys[keys.size() == 1 ? 0 : i]) << names[i];
        EXPECT_NE(op->attrs, nullptr) << names[i];
      }
    }
  }
}

TEST(RegistryTest, QnnArgNamesFollowTheRegistry) {
  // TVM's add_argument order, not the call order (spec/ops.md §14).
  EXPECT_EQ(JoinArgs(FindOp("qnn.conv2d")),
            "data, weight, input_scale, input_zero_point, weight_scale, weight_zero_point");
  EXPECT_EQ(JoinArgs(FindOp("qnn.dense")),
            "data, weight, input_scale, input_zero_point, weight_scale, weight_zero_point");
}

TEST(RegistryTest, ExtraOpsNamedByTheSpecAreRegistered) {
  for (const char* name : {"atan",
                           "variance",
                           "nn.max_pool3d",
                           "nn.avg_pool3d",
                           "nn.adaptive_max_pool2d",
                           "nn.conv3d_transpose",
                           "nn.conv1d_transpose",
                           "trunc_divide",
                           "mod",
                           "trunc_mod",
                           "left_shift",
                           "right_shift",
                           "bitwise_and",
                           "bitwise_or",
                           "bitwise_xor",
                           "logical_xor",
                           "fast_exp",
                           "fast_tanh",
                           "fast_erf",
                           "nn.fast_softmax",
                           "nn.dropout",
                           "nn.global_max_pool2d",
                           "nn.global_avg_pool2d",
                           "isnan",
                           "isinf",
                           "isfinite",
                           "copy",
                           "round",
                           "argmax",
                           "argmin",
                           "qnn.add",
                           "image.resize2d",
                           "nn.depth_to_space"}) {
    EXPECT_NE(FindOp(name), nullptr) << name;
  }
}

// Every op call in the corpus: a dotted lowercase name followed by `(`, not
// preceded by % or @ (locals and globals) and not a keyword.
std::set<std::string> CorpusOps() {
  std::set<std::string> ops;
  auto is_name = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  };
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(CARVE_SHARED_DIR) / "corpus")) {
    std::string ext = entry.path().extension().string();
    if (ext != ".relay" && ext != ".txt") continue;
    std::string text = ReadFile(entry.path());
    for (size_t paren = text.find('('); paren != std::string::npos;
         paren = text.find('(', paren + 1)) {
      size_t begin = paren;
      while (begin > 0 && is_name(text[begin - 1])) --begin;
      if (begin == paren) continue;
      char before = begin > 0 ? text[begin - 1] : ' ';
      if (before == '%' || before == '@' || (before >= 'A' && before <= 'Z')) continue;
      std::string name = text.substr(begin, paren - begin);
      if (name[0] >= '0' && name[0] <= '9') continue;
      if (name == "fn" || name == "if" || name == "let" || name == "def") continue;
      ops.insert(name);
    }
  }
  return ops;
}

TEST(RegistryTest, EveryCorpusOpIsRegistered) {
  std::set<std::string> ops = CorpusOps();
  EXPECT_GE(ops.size(), 20u);
  for (const std::string& name : ops) EXPECT_NE(FindOp(name), nullptr) << name;
}

TEST(RegistryTest, Flags) {
  std::set<std::string> commutative = {"add",         "multiply",    "maximum",     "minimum",
                                       "equal",       "not_equal",   "logical_and", "logical_or",
                                       "logical_xor", "bitwise_and", "bitwise_or",  "bitwise_xor"};
  for (const OpInfo* op : AllOps()) {
    std::string name(op->name);
    EXPECT_EQ(op->commutative(), commutative.count(name) == 1) << name;
    EXPECT_EQ((op->flags & kOpStateful) != 0, name == "nn.dropout") << name;
    // TVM v0.16's TNonComputational ops: the qnn ops but avg_pool2d and the
    // simulated (de)quantize ones, carve's compiler annotations, and the
    // memory / VM / device internals.
    static const std::set<std::string> computational_qnn = {
        "qnn.avg_pool2d", "qnn.simulated_quantize", "qnn.simulated_dequantize"};
    static const std::set<std::string> internals = {"annotation.compiler_begin",
                                                    "annotation.compiler_end",
                                                    "memory.alloc_storage",
                                                    "memory.alloc_tensor",
                                                    "memory.kill",
                                                    "on_device",
                                                    "vm.invoke_tvm_op",
                                                    "vm.reshape_tensor",
                                                    "vm.shape_of",
                                                    "call_lowered",
                                                    "parser.MetaRef"};
    bool non_computational =
        (name.starts_with("qnn.") && !computational_qnn.contains(name)) || internals.contains(name);
    EXPECT_EQ((op->flags & kOpNonComputational) != 0, non_computational) << name;
  }
}

TEST(RegistryTest, EveryOpIsComplete) {
  for (const OpInfo* op : AllOps()) {
    EXPECT_NE(op->type_rel, nullptr) << op->name;
    if (op->num_inputs >= 0) {
      EXPECT_EQ(op->arg_names.size(), static_cast<size_t>(op->num_inputs)) << op->name;
    }
    EXPECT_EQ(op->attrs_type_key.empty(), op->attrs == nullptr) << op->name;
    if (op->attrs != nullptr) {
      EXPECT_EQ(op->attrs->type_key, op->attrs_type_key);
    }
  }
}

TEST(RegistryTest, AnnotationsKeepAnUnregisteredAttrsType) {
  const OpInfo* begin = FindOp("annotation.compiler_begin");
  ASSERT_NE(begin, nullptr);
  EXPECT_FALSE(begin->attrs_type_registered);
  EXPECT_EQ(begin->attrs_type_key, "relay.attrs.CompilerAttrs");
  EXPECT_TRUE(FindOp("nn.conv2d")->attrs_type_registered);
}

TEST(RegistryTest, AllOpsIsSortedAndUnique) {
  auto ops = AllOps();
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_LT(ops[i - 1]->name, ops[i]->name);
}

TEST(RegistryTest, NearestOp) {
  ASSERT_NE(NearestOp("nn.conv2"), nullptr);
  EXPECT_EQ(NearestOp("nn.conv2")->name, "nn.conv2d");
  ASSERT_NE(NearestOp("conv2d"), nullptr);
  EXPECT_EQ(NearestOp("conv2d")->name, "nn.conv2d");
  EXPECT_EQ(NearestOp("qqqqqqqqqqqqqqqqqqqqqqqq"), nullptr);
  EXPECT_EQ(UnknownOpMessage("nn.conv2"),
            "unknown operator 'nn.conv2' (did you mean 'nn.conv2d'?)");
}

// NearestOp skips ops whose length alone puts them too far; the answer must
// be the full search's: every op name, with one, two and four characters
// changed, cut or added, and a few with a namespace dropped or added.
size_t PlainDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

const OpInfo* PlainNearestOp(std::string_view name) {
  const OpInfo* best = nullptr;
  size_t best_distance = 0, best_full = 0;
  for (const OpInfo* op : AllOps()) {
    size_t full = PlainDistance(name, op->name), d = full;
    size_t dot = op->name.rfind('.');
    if (dot != std::string_view::npos) {
      d = std::min(d, PlainDistance(name, op->name.substr(dot + 1)) + 1);
    }
    if (best == nullptr || d < best_distance || (d == best_distance && full < best_full)) {
      best = op;
      best_distance = d;
      best_full = full;
    }
  }
  if (best == nullptr || best_distance > std::max<size_t>(3, name.size() / 3)) return nullptr;
  return best;
}

TEST(RegistryTest, NearestOpMatchesTheFullSearch) {
  std::vector<std::string> names = {"", "x", "conv", "nn.", "relu", "nn.relu2", "qnn.dens",
                                    "contrib.conv2d", "ethosu.conv2d", "dyn.reshap"};
  for (const OpInfo* op : AllOps()) {
    std::string n(op->name);
    names.push_back(n + "z");
    names.push_back(n.substr(0, n.size() / 2));
    names.push_back("x" + n.substr(1));
    names.push_back(n.substr(2) + "ab");
    if (size_t dot = n.rfind('.'); dot != std::string::npos) names.push_back(n.substr(dot + 1));
  }
  for (const std::string& name : names) {
    const OpInfo* expected = PlainNearestOp(name);
    const OpInfo* got = NearestOp(name);
    EXPECT_EQ(got, expected) << "'" << name << "': " << (got ? got->name : "none") << " vs "
                             << (expected ? expected->name : "none");
  }
}

TEST(RegistryTest, FindAttrsSchema) {
  const AttrsSchema* s = FindAttrsSchema("relay.attrs.Conv2DAttrs");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(FindOp("qnn.conv2d")->attrs, s);
  EXPECT_EQ(FindAttrsSchema("relay.attrs.NoSuchAttrs"), nullptr);
}

}  // namespace
}  // namespace carve
