// The targets TVM's BYOC tests register with
// `tvm.ir.register_op_attr(op, "target.<name>")` (every call accepted), for
// the golden ports in this folder. The case below loads the file.
// RUN: carve opt %S/targets_check.relay --patterns %S/targets.pat -p AnnotateTarget(test,test_tuple,A,B,clip,test_if_else,test_while_let,ccompiler)
// CHECK: compiler="test"

// test_multiple_ends, test_composite_function
backend test { ops nn.relu; }
// test_tuple
backend test_tuple { ops nn.relu, concatenate; }
// test_multiple_runs / test_different_targets
backend A { ops nn.relu; }
backend B { ops add; }
// test_ends_with_tuple
backend clip { ops clip; }
// test_if_else
backend test_if_else { ops equal, tanh, sigmoid, erf; }
// test_while_let
backend test_while_let { ops less, add, zeros_like; }
// test_pass_partition_graph.py's "ccompiler" annotator
backend ccompiler { ops add, subtract, multiply; }

// test_pass_merge_composite.py's pattern tables (TVM names them without a
// target prefix; here they are `<backend>.<name>`).
backend mc {
  composite add_sub_mul = multiply(add(?a, ?b), subtract(?a, ?b));
  composite bn_relu = nn.relu(nn.batch_norm(_, _, _, _, _).0);
  composite add_relu = nn.relu(add(_, _));
}
// test_merge_order: the first entry of the table wins.
backend order_a {
  composite add_relu = nn.relu(add(_, _));
  composite add = add(_, _);
}
backend order_b {
  composite add = add(_, _);
  composite add_relu = nn.relu(add(_, _));
}
