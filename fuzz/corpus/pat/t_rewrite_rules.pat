// Rewrite rules for the Rewrite pass tests (rewrite*.relay apply them with
// `Rewrite(%S/rewrite_rules.pat,...)`). This file's own case: on a model
// none of them matches, the module is left as it was.
// (`carve equal` prints nothing and exits 0 when the modules are equal.)
// RUN: carve opt %shared/corpus/mlp.relay -p Rewrite(%s) | carve equal - %shared/corpus/mlp.relay
// CHECK-NOT: differ

// A 1-D bias added after a convolution is a bias_add on the last axis (the
// channels in NHWC). The type constraint makes the rule read types.
rule fold_bias = add(nn.conv2d(_, _) as ?c, ?b : Tensor[(_), _]) => nn.bias_add(?c, ?b, axis=-1);

// Fires once per pair of nested relus and round, until one relu is left.
rule relu_relu = nn.relu(nn.relu(?x)) => nn.relu(?x);

// A chain: each rule makes what the next one matches.
rule sub_to_add = subtract(?x, ?y) => add(?x, negative(?y));
rule neg_neg = negative(negative(?x)) => ?x;
rule double = add(?x, ?x) => multiply(?x, 2f);
