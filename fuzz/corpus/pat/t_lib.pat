// Patterns used by match.relay and why.relay (`@%S/lib.pat:NAME`); this
// file's own case matches from it against a corpus module.
// RUN: carve match @%s:dense_bias_relu %shared/corpus/mlp.relay
// CHECK: %3: nn.relu
// CHECK-NEXT: %6: nn.relu
// CHECK-NEXT: matches: 2
// RUN: carve match @%s:mlp.dense_bias %shared/corpus/mlp.relay
// CHECK: %2: nn.bias_add
// CHECK-NEXT: %5: nn.bias_add
// CHECK-NEXT: %8: nn.bias_add
// CHECK-NEXT: matches: 3

pattern dense_relu = nn.relu(nn.dense(_, _));
pattern dense_bias_relu = nn.relu(nn.bias_add(nn.dense(?x, ?w), ?b)) where rank(?x) == 2;
rule relu_relu = nn.relu(nn.relu(?x)) => nn.relu(?x);

backend mlp {
  ops nn.dense, nn.relu;
  composite dense_bias = nn.bias_add(nn.dense(_, _), _);
  composite conv_bias_relu = nn.relu(nn.bias_add(nn.conv2d(_, const), const));
}
