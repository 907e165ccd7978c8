// The HTML page of `carve viz` in a real browser: headless Chromium (Debian
// `chromium`) loads it, its script runs to the end without an error, and a
// node named in the address (`page.html#%3`) is shown in the details panel.
// Skipped when no Chromium is installed (CI does not install it); takes
// about 2 s when it is.
#include <stdio.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "fmt/format.h"
#include "gtest/gtest.h"
#include "tools/cli/cli.h"
#include "tools/cli/env.h"

namespace carve::cli {
namespace {

using ::testing::HasSubstr;

std::string FindChromium() {
  for (const char* path : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(path)) return path;
  }
  return "";
}

// The DOM after the page's scripts ran, or "" when Chromium failed. Each
// call has a profile of its own: CTest runs these tests in parallel, and a
// second Chromium on a locked profile exits at once and prints nothing.
std::string DumpDom(const std::string& chromium, const std::string& url) {
  static int calls = 0;
  const std::string profile =
      fmt::format("{}/chromium-profile-{}-{}", testing::TempDir(), getpid(), calls++);
  std::string cmd = "timeout 120 " + chromium +
                    " --headless --no-sandbox --disable-gpu --user-data-dir=" + profile +
                    " --dump-dom '" + url + "' 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  pclose(pipe);
  std::error_code ignored;
  std::filesystem::remove_all(profile, ignored);
  return out;
}

TEST(VizChromiumTest, PageRunsItsScriptAndShowsTheNodeInTheAddress) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium installed";
  const std::string html = (std::filesystem::path(testing::TempDir()) / "viz_small.html").string();
  Env env = RealEnv();
  ASSERT_EQ(RunCarve({"viz", std::string(CARVE_SOURCE_DIR) + "/tests/golden/viz/small.relay",
                      "--backend", "dnnl", "-o", html},
                     env),
            0);
  // %3 is the argmax dnnl does not take (the name `carve fmt` prints).
  std::string dom = DumpDom(chromium, "file://" + html + "#%253");
  ASSERT_FALSE(dom.empty()) << "chromium printed nothing";
  EXPECT_THAT(dom, HasSubstr("data-carve-ready=\"1\""));
  EXPECT_THAT(dom, HasSubstr("<dd>%3</dd><dt>op</dt><dd>argmax</dd>"));
  EXPECT_THAT(dom, HasSubstr("<dd>dnnl: unsupported op</dd>"));
  EXPECT_THAT(dom, HasSubstr("class=\"node sel\""));
}

// A graph too large to open whole opens at 1:1 on its first operator: a
// wide top row of inputs and weights left the middle of the drawing, where
// the view used to open, blank (ppocr's 416 nodes showed nothing).
TEST(VizChromiumTest, LargeGraphOpensOnOperators) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no chromium installed";
  const std::filesystem::path relay =
      std::filesystem::path(CARVE_SHARED_DIR) / "corpus" / "resnet18_cifar.relay";
  if (!std::filesystem::exists(relay)) GTEST_SKIP() << "no shared corpus at " << relay;
  const std::string html = (std::filesystem::path(testing::TempDir()) / "viz_large.html").string();
  Env env = RealEnv();
  ASSERT_EQ(RunCarve({"viz", relay.string(), "--backend", "dnnl", "--max-nodes", "2000", "-o",
                      html},
                     env),
            0);
  std::string dom = DumpDom(chromium, "file://" + html);
  ASSERT_THAT(dom, HasSubstr("data-carve-ready=\"1\""));
  EXPECT_THAT(dom, HasSubstr("data-carve-ops-in-view=\""));
  EXPECT_THAT(dom, ::testing::Not(HasSubstr("data-carve-ops-in-view=\"0\"")));
}

}  // namespace
}  // namespace carve::cli
