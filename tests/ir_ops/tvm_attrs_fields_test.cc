// carve's attrs schemas against TVM v0.16's declarations: every
// relay.attrs.* type TVM declares (tests/ir_ops/tvm_attrs_fields.txt, taken
// from TVM's TVM_DECLARE_ATTRS blocks) has a schema with the same field names
// in the same order, and every carve schema is one of TVM's. Defaults,
// types and quirks are checked per schema in schema_test.cc.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ir/op.h"

namespace carve {
namespace {

struct TvmAttrs {
  std::string type_key;
  std::string source;
  std::vector<std::string> fields;
};

std::vector<TvmAttrs> ReadList() {
  std::ifstream in(CARVE_SOURCE_DIR "/tests/ir_ops/tvm_attrs_fields.txt");
  EXPECT_TRUE(in.good()) << "cannot read tvm_attrs_fields.txt";
  std::vector<TvmAttrs> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    TvmAttrs row;
    words >> row.type_key >> row.source;
    for (std::string f; words >> f;) row.fields.push_back(f);
    out.push_back(std::move(row));
  }
  return out;
}

// TVM declares two structs with the type key relay.attrs.SimulatedQuantizeAttrs
// (qnn's and the quantization pass's); carve gives the second its own key.
std::string CarveKey(const TvmAttrs& row) {
  if (row.source == "src/relay/quantize/quantize.h") {
    return "relay.attrs.QuantizeSimulatedQuantizeAttrs";
  }
  return row.type_key;
}

// TVM attrs types that no registered op takes: InferType's internal record
// of a TupleGetItem, and the VM's shape-function flags.
const std::set<std::string> kNotOpAttrs = {"relay.attrs.TupleGetItemAttrs",
                                           "relay.attrs.ShapeFuncAttrs"};

TEST(TvmAttrsFields, EveryTvmAttrsTypeHasItsFieldsInOrder) {
  std::vector<TvmAttrs> list = ReadList();
  ASSERT_GT(list.size(), 140u);
  for (const TvmAttrs& row : list) {
    if (kNotOpAttrs.contains(row.type_key)) {
      EXPECT_EQ(FindAttrsSchema(row.type_key), nullptr) << row.type_key;
      continue;
    }
    std::string key = CarveKey(row);
    const AttrsSchema* schema = FindAttrsSchema(key);
    ASSERT_NE(schema, nullptr) << key << " (" << row.source << ") has no schema";
    std::vector<std::string> names;
    for (const AttrField& f : schema->fields) names.emplace_back(f.name);
    EXPECT_EQ(names, row.fields) << key << " (" << row.source << ")";
  }
}

TEST(TvmAttrsFields, EveryCarveSchemaIsTvms) {
  std::set<std::string> tvm;
  for (const TvmAttrs& row : ReadList()) tvm.insert(CarveKey(row));
  for (const OpInfo* op : AllOps()) {
    if (op->attrs == nullptr) continue;
    EXPECT_TRUE(tvm.contains(std::string(op->attrs->type_key)))
        << op->name << " takes " << op->attrs->type_key << ", which TVM does not declare";
  }
}

// An op's attrs type is the one its TVM registration declares (ops.def's
// attrs key names a schema that exists).
TEST(TvmAttrsFields, EveryOpAttrsKeyNamesASchema) {
  for (const OpInfo* op : AllOps()) {
    if (op->attrs_type_key.empty()) continue;
    EXPECT_NE(op->attrs, nullptr) << op->name << ": " << op->attrs_type_key;
  }
}

}  // namespace
}  // namespace carve
