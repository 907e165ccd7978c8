// A rule that grows the graph: every round doubles the relus. Rewriting
// stops within seconds when a function's graph passes the node limit
// (16 times its size, at least 65536 nodes), naming the rule and the sizes;
// it used to run for minutes, doubling its memory every round.
// RUN: carve opt %shared/corpus/mlp.relay -p Rewrite(%s)
// EXIT: 1
// CHECK: error: Rewrite: @main: rewriting grew the graph from
// CHECK-NOT: def @main
rule grow = nn.relu(?x) => nn.relu(nn.relu(?x));
// -----
// An explicit limit; the hint raises it fourfold.
// RUN: carve opt %shared/corpus/mlp.relay -p Rewrite(%s,max_nodes=100)
// EXIT: 1
// CHECK: over the node limit of 100, in
// CHECK-NOT: def @main
rule grow = nn.relu(?x) => nn.relu(nn.relu(?x));
