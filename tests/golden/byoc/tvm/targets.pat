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
