// TVM v0.16's dominator patterns from tests/python/relay/test_dataflow_pattern.py
// in the DSL, used by dominators.relay. `has_attr(_, TOpPattern=0)` is TVM's
// `wildcard().has_attr({"TOpPattern": K_ELEMWISE})` on the callee. Every
// `_` is its own wildcard; a named pattern used twice would be one node, so
// each pattern is written out in full.

// test_match_diamond: a plain diamond, the conv shared through ?c.
pattern diamond = add(nn.relu(nn.conv2d(_, _) as ?c), nn.leaky_relu(?c));

// test_at_most_one_parent / test_not_match_dominator2.
pattern relu_path = dominates(nn.conv2d(_, _), nn.relu(_), add(_, _));

// test_match_dominator / test_not_match_dominator / test_partition_dominator.
pattern elemwise_path = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_), add(_, _));

// The "fuzzy path/nested diamond" pattern: the path may also be an add.
pattern fuzzy_path = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) | add(_, _),
                               add(_, _));

// test_match_typed_dominator / test_no_match_typed_dominator.
pattern typed = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) : float32,
                          add(_, _) : Tensor[(1, 3, 10, 10), _]);
pattern typed_shape = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) : float32,
                                add(_, _) : Tensor[(1, 1, 10, 10), _]);
pattern typed_dtype = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) : float16,
                                add(_, _) : Tensor[(1, 3, 10, 10), _]);

// test_quadruple_rewrite_dominator: every diamond becomes its conv.
rule remove_diamond = dominates(nn.conv2d(?inp, ?weight),
                                has_attr(_, TOpPattern=0)(_) | add(_, _), add(_, _))
                      => nn.conv2d(?inp, ?weight);

// test_partition_dominator / test_quadruple_partition_dominator.
backend dom {
  composite diamond = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_), add(_, _));
}
backend fuzzy {
  composite diamond = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) | add(_, _),
                                add(_, _));
}

// Not from TVM's tests: dominators after an earlier composite of the same
// table (MergeComposite runs the table in order). A composite call on the
// path is a call of a function, not of an op: an elemwise path rejects it,
// a wildcard path (`child.dominates(parent)`'s default) goes through it,
// skipping the callee as TVM's MatchesPath does.
backend after_leaky {
  composite leaky = nn.leaky_relu(_);
  composite diamond = dominates(nn.conv2d(_, _), has_attr(_, TOpPattern=0)(_) | add(_, _),
                                add(_, _));
}
backend after_tanh {
  composite tanh = tanh(_);
  composite diamond = dominates(nn.conv2d(_, _), _, add(_, _));
}
