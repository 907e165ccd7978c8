// Attribute schemas: TVM's field names, types, required-ness, C++ defaults
// and declaration (print) order, including the quirks of spec/ops.md §18.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "ir/op.h"

namespace carve {
namespace {

std::string TypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt:
      return "int";
    case AttrType::kBool:
      return "bool";
    case AttrType::kDouble:
      return "double";
    case AttrType::kString:
      return "str";
    case AttrType::kDType:
      return "dtype";
    case AttrType::kInts:
      return "ints";
    case AttrType::kIntsArray:
      return "ints_array";
    case AttrType::kDoubles:
      return "doubles";
    case AttrType::kInteger:
      return "Integer";
    case AttrType::kIntOrInts:
      return "int_or_ints";
    case AttrType::kAny:
      return "any";
  }
  return "?";
}

// "name:type=default" per field, "name:type!" for required ones.
std::string Describe(std::string_view key) {
  const AttrsSchema* s = FindAttrsSchema(key);
  if (s == nullptr) return "missing " + std::string(key);
  std::string out;
  for (const AttrField& f : s->fields) {
    if (!out.empty()) out += " ";
    out += std::string(f.name) + ":" + TypeName(f.type);
    if (f.required) {
      out += "!";
    } else {
      out += '=';
      out += AttrValueToString(f.default_value, f.type);
    }
  }
  return out;
}

TEST(SchemaTest, Conv2DAttrs) {
  const AttrsSchema* s = FindAttrsSchema("relay.attrs.Conv2DAttrs");
  ASSERT_NE(s, nullptr);
  std::vector<std::string> names;
  for (const AttrField& f : s->fields) names.emplace_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"strides", "padding", "dilation", "groups", "channels",
                                             "kernel_size", "data_layout", "kernel_layout",
                                             "out_layout", "out_dtype"}));
  const Attrs* d = DefaultAttrs(s);
  EXPECT_EQ(AttrValueToString(*d->Find("strides")), "[1, 1]");
  EXPECT_EQ(AttrValueToString(*d->Find("padding")), "[0, 0]");
  EXPECT_EQ(AttrValueToString(*d->Find("dilation")), "[1, 1]");
  EXPECT_EQ(d->GetInt("groups"), 1);
  EXPECT_TRUE(d->Find("channels")->is_null());
  EXPECT_EQ(s->fields[4].type, AttrType::kInteger);
  EXPECT_FALSE(s->fields[4].required);
  EXPECT_TRUE(d->Find("kernel_size")->is_null());
  EXPECT_EQ(d->GetString("data_layout"), "NCHW");
  EXPECT_EQ(d->GetString("kernel_layout"), "OIHW");
  EXPECT_EQ(d->GetString("out_layout"), "");
  EXPECT_EQ(s->fields[9].type, AttrType::kDType);
  EXPECT_TRUE(d->GetDType("out_dtype").is_void());
  for (const AttrField& f : s->fields) EXPECT_FALSE(f.required) << f.name;
}

TEST(SchemaTest, MaxPool2DAttrsDeclaresDilationBeforePadding) {
  EXPECT_EQ(Describe("relay.attrs.MaxPool2DAttrs"),
            "pool_size:ints! strides:ints=[1, 1] dilation:ints=[1, 1] padding:ints=[0, 0] "
            "layout:str=\"NCHW\" out_layout:str=\"\" ceil_mode:bool=False");
  EXPECT_EQ(Describe("relay.attrs.AvgPool2DAttrs"),
            "pool_size:ints! strides:ints=[1, 1] dilation:ints=[1, 1] padding:ints=[0, 0] "
            "layout:str=\"NCHW\" out_layout:str=\"\" ceil_mode:bool=False "
            "count_include_pad:bool=False");
  EXPECT_EQ(Describe("relay.attrs.MaxPool3DAttrs"),
            "pool_size:ints! strides:ints=[1, 1, 1] dilation:ints=[1, 1, 1] "
            "padding:ints=[0, 0, 0] layout:str=\"NCDHW\" out_layout:str=\"\" "
            "ceil_mode:bool=False");
}

TEST(SchemaTest, Conv2DTransposeAttrsHasItsOwnOrder) {
  const AttrsSchema* s = FindAttrsSchema("relay.attrs.Conv2DTransposeAttrs");
  ASSERT_NE(s, nullptr);
  std::vector<std::string> names;
  for (const AttrField& f : s->fields) names.emplace_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"channels", "kernel_size", "strides", "output_padding",
                                             "padding", "dilation", "groups", "data_layout",
                                             "kernel_layout", "out_layout", "out_dtype"}));
  const Attrs* d = DefaultAttrs(s);
  EXPECT_EQ(AttrValueToString(*d->Find("output_padding")), "[0, 0]");
  EXPECT_EQ(d->GetString("kernel_layout"), "IOHW");
}

TEST(SchemaTest, RequiredFieldsAndNullDefaults) {
  struct Case {
    const char* key;
    const char* field;
    AttrType type;
  };
  for (const Case& c : {Case{"relay.attrs.DenseAttrs", "units", AttrType::kInteger},
                        Case{"relay.attrs.MatmulAttrs", "units", AttrType::kInteger},
                        Case{"relay.attrs.ReshapeAttrs", "newshape", AttrType::kInts},
                        Case{"relay.attrs.TransposeAttrs", "axes", AttrType::kInts},
                        Case{"relay.attrs.StridedSliceAttrs", "axes", AttrType::kInts},
                        Case{"relay.attrs.StridedSliceAttrs", "strides", AttrType::kInts},
                        Case{"relay.attrs.SplitAttrs", "indices_or_sections", AttrType::kIntOrInts},
                        Case{"relay.attrs.PadAttrs", "pad_width", AttrType::kIntsArray},
                        Case{"relay.attrs.ClipAttrs", "a_min", AttrType::kDouble},
                        Case{"relay.attrs.CastAttrs", "dtype", AttrType::kDType},
                        Case{"relay.attrs.QuantizeAttrs", "out_dtype", AttrType::kDType},
                        Case{"relay.attrs.ExpandDimsAttrs", "axis", AttrType::kInt},
                        Case{"relay.attrs.UpSamplingAttrs", "scale_h", AttrType::kDouble},
                        Case{"relay.attrs.MaxPool3DAttrs", "pool_size", AttrType::kInts},
                        Case{"relay.attrs.CompilerAttrs", "compiler", AttrType::kString}}) {
    const AttrsSchema* s = FindAttrsSchema(c.key);
    ASSERT_NE(s, nullptr) << c.key;
    int i = s->FieldIndex(c.field);
    ASSERT_GE(i, 0) << c.key << "." << c.field;
    EXPECT_TRUE(s->fields[i].required) << c.key << "." << c.field;
    EXPECT_TRUE(s->fields[i].default_value.is_null()) << c.key << "." << c.field;
    EXPECT_EQ(s->fields[i].type, c.type) << c.key << "." << c.field;
  }
}

TEST(SchemaTest, CppDefaultsNotPythonOnes) {
  const Attrs* leaky = DefaultAttrs(FindAttrsSchema("relay.attrs.LeakyReluAttrs"));
  EXPECT_EQ(leaky->Find("alpha")->kind(), AttrValue::Kind::kFloat);
  EXPECT_DOUBLE_EQ(leaky->GetFloat("alpha"), 0.25);
  const Attrs* bmm = DefaultAttrs(FindAttrsSchema("relay.attrs.BatchMatmulAttrs"));
  EXPECT_EQ(*bmm->Find("transpose_b"), AttrValue::Bool(false));
  const Attrs* resize = DefaultAttrs(FindAttrsSchema("relay.attrs.Resize2DAttrs"));
  EXPECT_TRUE(resize->Find("roi")->is_null());
  EXPECT_EQ(resize->GetString("rounding_method"), "round");
  EXPECT_DOUBLE_EQ(resize->GetFloat("cubic_alpha"), -0.5);
  const Attrs* adaptive = DefaultAttrs(FindAttrsSchema("relay.attrs.AdaptivePool2DAttrs"));
  // The default is an empty array, which is not null.
  EXPECT_EQ(adaptive->Find("output_size")->kind(), AttrValue::Kind::kArray);
  EXPECT_TRUE(adaptive->Find("output_size")->as_array().empty());
  const Attrs* req = DefaultAttrs(FindAttrsSchema("relay.attrs.RequantizeAttrs"));
  EXPECT_EQ(req->GetString("rounding"), "None");
  EXPECT_TRUE(req->GetDType("out_dtype").is_void());
  const Attrs* bn = DefaultAttrs(FindAttrsSchema("relay.attrs.BatchNormAttrs"));
  EXPECT_DOUBLE_EQ(bn->GetFloat("epsilon"), 1e-5);
  EXPECT_EQ(*bn->Find("center"), AttrValue::Bool(true));
  const Attrs* take = DefaultAttrs(FindAttrsSchema("relay.attrs.TakeAttrs"));
  EXPECT_EQ(take->GetInt("batch_dims"), 0);
  EXPECT_TRUE(take->Find("axis")->is_null());
  EXPECT_EQ(take->GetString("mode"), "clip");
}

TEST(SchemaTest, FullDescriptions) {
  EXPECT_EQ(Describe("relay.attrs.Conv2DAttrs"),
            "strides:ints=[1, 1] padding:ints=[0, 0] dilation:ints=[1, 1] groups:int=1 "
            "channels:Integer=None kernel_size:ints=None data_layout:str=\"NCHW\" "
            "kernel_layout:str=\"OIHW\" out_layout:str=\"\" out_dtype:dtype=\"\"");
  EXPECT_EQ(Describe("relay.attrs.DenseAttrs"), "units:Integer! out_dtype:dtype=\"\"");
  EXPECT_EQ(Describe("relay.attrs.StridedSliceAttrs"),
            "begin:ints! end:ints! strides:ints! slice_mode:str=\"end\" axes:ints!");
  EXPECT_EQ(Describe("relay.attrs.Resize2DAttrs"),
            "size:ints=None roi:doubles=None layout:str=\"NCHW\" method:str=\"linear\" "
            "coordinate_transformation_mode:str=\"half_pixel\" "
            "rounding_method:str=\"round\" cubic_alpha:double=-0.5f cubic_exclude:int=0 "
            "extrapolation_value:double=0f out_dtype:dtype=\"\"");
  EXPECT_EQ(Describe("relay.attrs.SplitAttrs"), "indices_or_sections:int_or_ints! axis:int=0");
  EXPECT_EQ(Describe("relay.attrs.PadAttrs"), "pad_width:ints_array! pad_mode:str=\"constant\"");
  EXPECT_EQ(Describe("relay.attrs.InitOpAttrs"), "shape:ints! dtype:dtype=\"\"");
  EXPECT_EQ(Describe("relay.attrs.VarianceAttrs"),
            "axis:ints=None keepdims:bool=False exclude:bool=False unbiased:bool=False");
  EXPECT_EQ(Describe("relay.attrs.Conv3DTransposeAttrs"),
            "channels:Integer=None kernel_size:ints=None strides:ints=[1, 1, 1] "
            "output_padding:ints=[0, 0, 0] padding:ints=[0, 0, 0] dilation:ints=[1, 1, 1] "
            "groups:int=1 data_layout:str=\"NCDHW\" kernel_layout:str=\"IODHW\" "
            "out_layout:str=\"\" out_dtype:dtype=\"\"");
}

TEST(SchemaTest, ArgReduceOrder) {
  const AttrsSchema* s = FindAttrsSchema("relay.attrs.ArgReduceAttrs");
  ASSERT_NE(s, nullptr);
  std::vector<std::string> names;
  for (const AttrField& f : s->fields) names.emplace_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"axis", "keepdims", "select_last_index", "exclude"}));
}

TEST(SchemaTest, FieldNamesAreUniqueAndRequiredFieldsHaveNoDefault) {
  for (const OpInfo* op : AllOps()) {
    if (op->attrs == nullptr) continue;
    std::set<std::string_view> seen;
    for (const AttrField& f : op->attrs->fields) {
      EXPECT_TRUE(seen.insert(f.name).second) << op->attrs->type_key << "." << f.name;
      if (f.required) {
        EXPECT_TRUE(f.default_value.is_null()) << f.name;
      }
    }
  }
}

}  // namespace
}  // namespace carve
