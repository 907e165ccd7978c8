// Virtual devices in the text format (TVM v0.16's printer and parser):
// `%x {virtual_device=meta[VirtualDevice][i]}: T`, a function's trailing
// `virtual_device=...`, and meta references as on_device / device_copy
// attribute values, resolved against the `#[metadata]` section.
#include <algorithm>
#include <string>

#include "gmock/gmock.h"
#include "grammar/metadata.h"
#include "grammar/parser.h"
#include "grammar/printer.h"
#include "gtest/gtest.h"
#include "ir/structural_equal.h"
#include "test_util.h"

namespace carve {
namespace {

using ::testing::HasSubstr;
using testing_util::Locations;

// The `#[metadata]` section holding `devices`, as carve writes it.
std::string Section(const std::vector<const VirtualDevice*>& devices) {
  MetadataTables tables;
  tables.virtual_devices = devices;
  tables.first_use = {"VirtualDevice"};
  return "#[metadata]\n" + WriteMetadata(tables);
}

const VirtualDevice* Cpu() { return NewVirtualDevice(1, 0); }
const VirtualDevice* Gpu() { return NewVirtualDevice(2, 0); }

constexpr char kLeftAddOnCpu[] = R"(#[version = "0.0.5"]
def @main(%a {virtual_device=meta[VirtualDevice][0]}: Tensor[(5, 7), float32], %b {virtual_device=meta[VirtualDevice][1]}: Tensor[(5, 7), float32], virtual_device=meta[VirtualDevice][1]) {
  %0 = on_device(%a, virtual_device=meta[VirtualDevice][0], constrain_result=True);
  %1 = device_copy(%0, src_virtual_device=meta[VirtualDevice][0], dst_virtual_device=meta[VirtualDevice][1]);
  add(%1, %b)
}

)";

TEST(VirtualDeviceText, ParsesParametersFunctionsAndAttributes) {
  auto m = ParseModule("t.relay", kLeftAddOnCpu + Section({Cpu(), Gpu()}));
  ASSERT_TRUE(m.ok()) << m.status();
  const Function* main = m->Lookup("main");
  ASSERT_NE(main, nullptr);
  ASSERT_NE(main->virtual_device(), nullptr);
  EXPECT_EQ(*main->virtual_device(), *Gpu());
  // Moved into the field, not kept as a dictionary attribute.
  EXPECT_FALSE(main->HasAttr("virtual_device"));
  ASSERT_NE(main->params()[0]->virtual_device(), nullptr);
  EXPECT_EQ(*main->params()[0]->virtual_device(), *Cpu());
  // One object per metadata entry: the parameter and the function share it.
  EXPECT_EQ(main->params()[1]->virtual_device(), main->virtual_device());
  const auto* add = Cast<Call>(main->body());
  const auto* copy = Cast<Call>(add->args()[0]);
  const auto* on_device = Cast<Call>(copy->args()[0]);
  EXPECT_EQ(on_device->attrs()->Find("virtual_device")->as_virtual_device(),
            main->params()[0]->virtual_device());
  EXPECT_EQ(copy->attrs()->Find("dst_virtual_device")->as_virtual_device(),
            main->virtual_device());
}

TEST(VirtualDeviceText, PrintsBackByteForByte) {
  const std::string text = kLeftAddOnCpu + Section({Cpu(), Gpu()});
  auto m = ParseModule("t.relay", text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(*m), text);  // the CLI adds the final newline
}

TEST(VirtualDeviceText, RenumbersByFirstUse) {
  // The metadata lists the GPU first, but the printer meets the CPU first.
  std::string text = kLeftAddOnCpu;
  for (auto [from, to] : {std::pair{"][0]", "][X]"}, {"][1]", "][0]"}, {"][X]", "][1]"}}) {
    for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + 1)) {
      text.replace(at, 4, to);
    }
  }
  auto m = ParseModule("t.relay", text + Section({Gpu(), Cpu()}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(*m), kLeftAddOnCpu + Section({Cpu(), Gpu()}));
}

TEST(VirtualDeviceText, UnconstrainedPrintsNothing) {
  auto m = ParseModule("t.relay", std::string(R"(#[version = "0.0.5"]
def @main(%x {virtual_device=meta[VirtualDevice][0]}: float32, virtual_device=meta[VirtualDevice][0]) {
  %x
}
)") + Section({NewVirtualDevice(VirtualDevice::kInvalidDeviceType)}));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->Lookup("main")->virtual_device(), nullptr);
  EXPECT_EQ(PrintModule(*m), "#[version = \"0.0.5\"]\ndef @main(%x: float32) {\n  %x\n}\n");
}

TEST(VirtualDeviceText, KeepsOtherFunctionAttributes) {
  auto m = ParseModule("t.relay", std::string(R"(#[version = "0.0.5"]
def @main(%x: float32, Primitive=1, virtual_device=meta[VirtualDevice][0]) {
  %x
}
)") + Section({Cpu()}));
  ASSERT_TRUE(m.ok()) << m.status();
  const Function* main = m->Lookup("main");
  EXPECT_TRUE(main->HasAttr("Primitive"));
  EXPECT_FALSE(main->HasAttr("virtual_device"));
  EXPECT_THAT(PrintModule(*m),
              HasSubstr("def @main(%x: float32, Primitive=1, "
                        "virtual_device=meta[VirtualDevice][0]) {"));
}

TEST(VirtualDeviceText, MixesWithTheFastParameterPath) {
  // Parameters of a recently seen tensor type take the parser's fast path,
  // which must leave one with attributes to the full one.
  auto m = ParseModule("t.relay", std::string(R"(#[version = "0.0.5"]
def @f(%p: Tensor[(5, 7), float32], %q: Tensor[(5, 7), float32]) {
  %p
}
def @main(%a: Tensor[(5, 7), float32], %b {virtual_device=meta[VirtualDevice][0]}: Tensor[(5, 7), float32], %c: Tensor[(5, 7), float32]) {
  %b
}
)") + Section({Cpu()}));
  ASSERT_TRUE(m.ok()) << m.status();
  auto params = m->Lookup("main")->params();
  ASSERT_EQ(params.size(), 3u);
  EXPECT_EQ(params[0]->virtual_device(), nullptr);
  ASSERT_NE(params[1]->virtual_device(), nullptr);
  EXPECT_EQ(*params[1]->virtual_device(), *Cpu());
  EXPECT_EQ(params[2]->virtual_device(), nullptr);
}

TEST(VirtualDeviceText, SharesTheSectionWithConstants) {
  // test_alloc_storage's expected module: a tensor constant and two devices
  // in one section (the devices are met first).
  NDArray shape = NDArray::Empty(DataType::Int(64), {2});
  shape.SetFromDouble(0, 3);
  shape.SetFromDouble(1, 2);
  MetadataTables tables;
  tables.virtual_devices = {Cpu(), Gpu()};
  tables.constants = {shape};
  tables.first_use = {"VirtualDevice", "relay.Constant"};
  const std::string text = std::string(R"(#[version = "0.0.5"]
def @main(%size {virtual_device=meta[VirtualDevice][0]}: int64, %alignment {virtual_device=meta[VirtualDevice][0]}: int64, virtual_device=meta[VirtualDevice][1]) {
  %0 = on_device(meta[relay.Constant][0], virtual_device=meta[VirtualDevice][0], constrain_result=True);
  memory.alloc_storage(%size, %0, %alignment, virtual_device=meta[VirtualDevice][1])
}

#[metadata]
)") + WriteMetadata(tables);
  auto m = ParseModule("t.relay", text);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(PrintModule(*m), text);
}

TEST(VirtualDeviceText, WithoutMetadataPrintsTheRepr) {
  // TVM's printer with show_meta_data=False writes the repr, which no parser
  // reads (and so no section, nor the note that it was left out).
  auto m = ParseModule("t.relay", kLeftAddOnCpu + Section({Cpu(), Gpu()}));
  ASSERT_TRUE(m.ok()) << m.status();
  PrintOptions options;
  options.show_metadata = false;
  EXPECT_EQ(PrintModule(*m, options), R"(#[version = "0.0.5"]
def @main(%a {virtual_device=VirtualDevice(device_type=1, virtual_device_id=0)}: Tensor[(5, 7), float32], %b {virtual_device=VirtualDevice(device_type=2, virtual_device_id=0)}: Tensor[(5, 7), float32], virtual_device=VirtualDevice(device_type=2, virtual_device_id=0)) {
  %0 = on_device(%a, virtual_device=VirtualDevice(device_type=1, virtual_device_id=0), constrain_result=True);
  %1 = device_copy(%0, src_virtual_device=VirtualDevice(device_type=1, virtual_device_id=0), dst_virtual_device=VirtualDevice(device_type=2, virtual_device_id=0));
  add(%1, %b)
}
)");
}

TEST(VirtualDeviceText, TargetKeepsItsKind) {
  const VirtualDevice* cuda = NewVirtualDevice(2, 0, "cuda", "global");
  std::string section = Section({cuda});
  EXPECT_THAT(section, HasSubstr("\"type_key\": \"Target\""));
  EXPECT_THAT(section, HasSubstr("\"type_key\": \"TargetKind\""));
  auto meta = ParseMetadata(section.substr(section.find('\n') + 1));
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(meta->virtual_devices.size(), 1u);
  EXPECT_EQ(*meta->virtual_devices[0], *cuda);
  EXPECT_EQ(VirtualDeviceRepr(*cuda),
            "VirtualDevice(device_type=2, virtual_device_id=0, target=cuda, "
            "memory_scope='global')");
}

TEST(VirtualDeviceText, ErrorsPointAtTheReference) {
  auto errors = [](const std::string& text) {
    auto m = ParseModule("t.relay", text);
    return m.ok() ? std::string("OK") : Locations(m.status());
  };
  const std::string head = "#[version = \"0.0.5\"]\n";
  // No metadata section at all.
  EXPECT_EQ(errors(head + "def @main(%x {virtual_device=meta[VirtualDevice][0]}: float32) {\n"
                          "  %x\n}\n"),
            "2:30: 'meta[VirtualDevice][0]' refers to the metadata section, but there is no "
            "#[metadata] section at the end of the file\n");
  // An index past the section's entries.
  EXPECT_EQ(errors(head + "def @main(%x: float32) {\n"
                          "  on_device(%x, virtual_device=meta[VirtualDevice][2])\n}\n\n" +
                   Section({Cpu()})),
            "3:32: 'meta[VirtualDevice][2]' is out of range: the metadata section has 1 "
            "VirtualDevice entries\n");
  // A function's and a parameter's virtual device must be an object.
  EXPECT_EQ(errors(head + "def @main(%x: float32, virtual_device=\"cpu\") {\n  %x\n}\n"),
            "2:39: a function's virtual_device must be a meta[VirtualDevice][i] reference\n");
  EXPECT_EQ(errors(head + "def @main(%x {virtual_device=1}: float32) {\n  %x\n}\n"),
            "2:30: a parameter's virtual_device must be a meta[VirtualDevice][i] reference\n");
  // Other meta references are still not attribute values.
  EXPECT_THAT(errors(head + "def @main(%x: float32) {\n"
                            "  on_device(%x, virtual_device=meta[relay.Constant][0])\n}\n"),
              HasSubstr("3:32: meta references are not supported as attribute values"));
  // An unclosed parameter attribute list.
  EXPECT_THAT(errors(head + "def @main(%x {virtual_device=meta[VirtualDevice][0]: float32) {\n"
                            "  %x\n}\n\n" + Section({Cpu()})),
              HasSubstr("expected '}' after the parameter's attributes"));
}

TEST(VirtualDeviceText, RenderedWithCaret) {
  auto m = ParseModule("dev.relay", std::string("#[version = \"0.0.5\"]\n"
                                                "def @main(%x: float32) {\n"
                                                "  on_device(%x, virtual_device=meta[VirtualDevice][5])\n"
                                                "}\n\n") +
                                        Section({Cpu()}));
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(RenderStatus(m.status()),
              HasSubstr("dev.relay:3:32: error: 'meta[VirtualDevice][5]' is out of range"));
  EXPECT_THAT(RenderStatus(m.status()),
              HasSubstr("\n    on_device(%x, virtual_device=meta[VirtualDevice][5])\n" +
                        std::string(33, ' ') + "^"));
}

TEST(VirtualDeviceText, EqualityFollowsTvm) {
  auto parse = [](const char* main_device, const char* param_device) {
    std::string text = std::string("#[version = \"0.0.5\"]\ndef @main(%x {virtual_device=meta[VirtualDevice][") +
                       param_device + "]}: float32, virtual_device=meta[VirtualDevice][" +
                       main_device + "]) {\n  on_device(%x, virtual_device=meta[VirtualDevice][" +
                       param_device + "], constrain_result=True)\n}\n\n";
    auto m = ParseModule("t.relay", text + Section({Cpu(), Gpu()}));
    EXPECT_TRUE(m.ok()) << m.status();
    return *std::move(m);
  };
  Module base = parse("0", "1");
  // Separately made but equal objects are equal.
  EXPECT_TRUE(StructuralEqual(base, parse("0", "1")));
  // TVM's FunctionNode::SEqualReduce leaves the function's own device out.
  EXPECT_TRUE(StructuralEqual(base, parse("1", "1")));
  // A parameter's device counts (VarNode::SEqualReduce), and so do attributes.
  EXPECT_FALSE(StructuralEqual(base, parse("0", "0")));
}

TEST(VirtualDeviceText, GoldenCasesRoundTrip) {
  // tests/golden/text/virtual_devices.relay holds modules as TVM's printer
  // writes them; each prints back byte for byte (what its `carve fmt` RUN
  // lines check through the CLI).
  std::string golden =
      testing_util::ReadFile(std::string(CARVE_SOURCE_DIR) + "/tests/golden/text/virtual_devices.relay");
  ASSERT_FALSE(golden.empty());
  size_t cases = 0;
  for (size_t begin = 0; begin < golden.size();) {
    size_t end = golden.find("// -----\n", begin);
    if (end == std::string::npos) end = golden.size();
    std::string text;
    for (size_t line = begin; line < end;) {
      size_t next = golden.find('\n', line);
      next = next == std::string::npos ? end : std::min(next + 1, end);
      if (golden.compare(line, 2, "//") != 0) text += golden.substr(line, next - line);
      line = next;
    }
    begin = end == golden.size() ? end : end + 9;
    auto m = ParseModule("golden.relay", text);
    ASSERT_TRUE(m.ok()) << m.status();
    // PrintModule leaves out the newline after the metadata section, which
    // `carve fmt` writes.
    std::string printed = PrintModule(*m);
    if (printed.back() != '\n') printed += '\n';
    EXPECT_EQ(printed, text) << "case " << cases;
    ++cases;
  }
  EXPECT_EQ(cases, 4u);
}

}  // namespace
}  // namespace carve
