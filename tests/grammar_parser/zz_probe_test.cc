#include "gtest/gtest.h"
#include "test_util.h"
namespace carve {
TEST(Probe, Print) {
  std::vector<std::string> cases = {
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  add(%x, 1",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  %0 = add(%x, 1;\n  %0\n}\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  nn.conv2(%x)\n}\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  nn.conv2d(%x, %x, stride=[1, 1])\n}\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  nn.conv2d(%x, %x, groups=\"two\")\n}\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  cast(%x, dtype=\"floot32\")\n}\n",
    "#[version = \"0.0.5\"]\ndef @main() {\n  (1.5, 65505f16, 99999999999i32, 5i7)\n}\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: int32) {\n  %1 = add(%0, %y);\n  @f(%1)\n}\n",
    "def @main() { 1 }",
    "#[version = \"0.0.5\"]\ndef @main() {\n  let %x = 1;\n  %x = 2;\n}\n",
    "#[version = \"0.0.5\"]\ndef @main() {\n  %0 = 1;\n  %0 = 2;\n  %0\n}\n",
    "#[version = \"0.0.5\"]\ndef @f() { 1 }\ndef @f() { 2 }\n",
    "#[version = \"0.0.5\"]\ntype List[A] { Nil }\ndef @main() { ref(1) }\n",
    "#[version = \"0.0.6\"]\ndef @main() { 1 }\n",
    "#[version = \"0.0.5\"]\ndef @main() {\n  %0 = add(1, );\n  %1 = nn.reluu(%0);\n  %2 = add(%1 2);\n  %3 = multiply(%2, %nope);\n  %3\n}\n",
    "#[version = \"0.0.5\"]\ndef @main() { meta[relay.Constant][0] }\n",
    "#[version = \"0.0.5\"]\ndef @main() { if (True) { 1 } }\n",
    "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 2), floot32]) { %x }\n",
    "#[version = \"0.0.5\"]\ndef @main() { fn (%x) { %x }; %x }\n",
  };
  for (auto& c : cases) {
    auto m = ParseModule("t.relay", c);
    printf("=== %s\n%s\n", c.c_str(), m.ok() ? "OK" : testing_util::Locations(m.status()).c_str());
  }
}
}
