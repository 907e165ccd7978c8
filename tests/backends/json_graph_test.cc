// The JSON graph model: TVM's layout on write, validation on read.
#include "backends/json/json_graph.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace carve {
namespace {

using ::testing::HasSubstr;

JsonGraph DenseGraph() {
  JsonGraph g;
  g.symbol = "tvmgen_default_bnns_main_0";
  JsonNode in{"input", "bnns_0_i0", {}, 1, {{1, 8}}, {DataType::Float(32)}, {}};
  JsonNode w{"const", "tvmgen_default_bnns_main_0_const_0", {}, 1, {{16, 8}},
             {DataType::Float(32)}, {}};
  JsonNode dense{"kernel", "nn.dense", {{0, 0, 0}, {1, 0, 0}}, 1, {{1, 16}},
                 {DataType::Float(32)}, {{"units", {"16"}}, {"out_dtype", {""}}}};
  g.nodes = {in, w, dense};
  g.heads = {{2, 0, 0}};
  return g;
}

TEST(JsonGraphTest, WritesTvmLayoutDeterministically) {
  std::string text = WriteJsonGraph(DenseGraph());
  EXPECT_EQ(text,
            "{\n"
            "  \"symbol\": \"tvmgen_default_bnns_main_0\",\n"
            "  \"nodes\": [\n"
            "    {\"op\":\"input\",\"name\":\"bnns_0_i0\",\"attrs\":{\"dtype\":[[\"float32\"]],"
            "\"shape\":[[[1,8]]]}},\n"
            "    {\"op\":\"const\",\"name\":\"tvmgen_default_bnns_main_0_const_0\",\"attrs\":"
            "{\"dtype\":[[\"float32\"]],\"shape\":[[[16,8]]]}},\n"
            "    {\"op\":\"kernel\",\"name\":\"nn.dense\",\"inputs\":[[0,0,0],[1,0,0]],\"attrs\":"
            "{\"dtype\":[[\"float32\"]],\"num_inputs\":\"2\",\"num_outputs\":\"1\",\"out_dtype\":"
            "[[\"\"]],\"shape\":[[[1,16]]],\"units\":[[\"16\"]]}}\n"
            "  ],\n"
            "  \"arg_nodes\": [0,1],\n"
            "  \"heads\": [[2,0,0]],\n"
            "  \"node_row_ptr\": [0,1,2,3]\n"
            "}\n");
  EXPECT_EQ(WriteJsonGraph(DenseGraph()), text);
}

TEST(JsonGraphTest, RoundTrips) {
  JsonGraph g = DenseGraph();
  absl::StatusOr<JsonGraph> back = ParseJsonGraph(WriteJsonGraph(g));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(WriteJsonGraph(*back), WriteJsonGraph(g));
  EXPECT_EQ(back->nodes[2].inputs[1], (JsonEntry{1, 0, 0}));
  EXPECT_EQ(back->nodes[2].FindAttr("units")->at(0), "16");
  EXPECT_EQ(back->ArgNodes(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(back->NodeRowPtr(), (std::vector<uint32_t>{0, 1, 2, 3}));
}

TEST(JsonGraphTest, MultiOutputNodesAndTvmSpellings) {
  // TVM writes "attr" in older graphs and counts outputs in node_row_ptr.
  std::string text = R"({"symbol": "s", "nodes": [
    {"op": "input", "name": "x", "attr": {"shape": [[[4]]], "dtype": [["float32"]]}},
    {"op": "kernel", "name": "split", "inputs": [[0, 0, 0]],
     "attrs": {"num_inputs": "1", "num_outputs": "2", "shape": [[[2], [2]]],
               "dtype": [["float32", "float32"]], "indices_or_sections": [["2"]]}}],
    "arg_nodes": [0], "heads": [[1, 0, 0], [1, 1, 0]], "node_row_ptr": [0, 1, 3]})";
  absl::StatusOr<JsonGraph> g = ParseJsonGraph(text);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->nodes[1].num_outputs, 2u);
  EXPECT_EQ(g->NumEntries(), 3u);
}

TEST(JsonGraphTest, RejectsMalformedGraphs) {
  auto error = [](std::string_view text) {
    absl::StatusOr<JsonGraph> g = ParseJsonGraph(text);
    return g.ok() ? std::string("ok") : std::string(g.status().message());
  };
  EXPECT_THAT(error("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(error(R"({"nodes": [{"op": "kernel", "name": "x", "inputs": [[3, 0, 0]],
                        "attrs": {"shape": [[[1]]], "dtype": [["float32"]]}}]})"),
              HasSubstr("not an earlier output"));
  EXPECT_THAT(error(R"({"nodes": [{"op": "input", "name": "x", "attrs": {"shape": [[[1]]]}}]})"),
              HasSubstr("1 outputs but 1 shapes and 0 dtypes"));
  EXPECT_THAT(error(R"({"nodes": [{"op": "var", "name": "x",
                        "attrs": {"shape": [[[1]]], "dtype": [["float32"]]}}]})"),
              HasSubstr("input, const or kernel"));
  EXPECT_THAT(error(R"({"nodes": [{"op": "input", "name": "x",
                        "attrs": {"shape": [[[1]]], "dtype": [["float32"]]}}],
                        "node_row_ptr": [0, 2]})"),
              HasSubstr("'node_row_ptr' does not match"));
  EXPECT_THAT(error(R"({"nodes": [], "heads": [[0, 0, 0]]})"), HasSubstr("is not an output"));
  EXPECT_THAT(error(R"({"nodes": [{"op": "input", "name": "x",
                        "attrs": {"shape": [[[1]]], "dtype": [["floaty"]]}}]})"),
              HasSubstr("unknown dtype 'floaty'"));
}

}  // namespace
}  // namespace carve
