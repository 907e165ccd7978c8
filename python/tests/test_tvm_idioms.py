"""TVM idioms for building expressions that ported code uses: relay.analysis's
variable queries, indexing the results of split / batch_norm as TVM's
TupleWrapper does, and ExprWithOp.astype."""

import pytest

import carve
from carve import relay


def typed_text(expr):
    mod = relay.transform.InferType()(carve.IRModule.from_expr(expr))
    return mod.astext(show_meta_data=False)


def test_free_vars_makes_the_parameters_of_a_function():
    x = relay.var("x", shape=(2, 3))
    b = relay.var("b", shape=(3,))
    y = relay.nn.relu(relay.add(x, b))
    params = relay.analysis.free_vars(y)
    assert [p.name_hint for p in params] == ["x", "b"]
    f = relay.Function(params, y)
    assert str(f).startswith("fn (%x: Tensor[(2, 3), float32], %b: Tensor[(3), float32])")


def test_bound_and_all_vars_follow_tvms_order():
    x = relay.var("x", shape=(2,))
    t = relay.var("t", shape=(2,))
    p = relay.var("p", shape=(2,))
    inner = relay.Function([p], relay.multiply(p, x))
    body = relay.Let(t, relay.add(x, x), relay.Call(inner, [t]))
    assert [v.name_hint for v in relay.analysis.free_vars(body)] == ["x"]
    assert [v.name_hint for v in relay.analysis.bound_vars(body)] == ["t", "p"]
    assert [v.name_hint for v in relay.analysis.all_vars(body)] == ["t", "x", "p"]
    # A function's parameters are bound in it, so it has no free variables.
    assert relay.analysis.free_vars(relay.Function([x], relay.nn.relu(x))) == []


def test_analysis_names_carve_lacks_say_what_it_has():
    with pytest.raises(AttributeError, match=r"no 'get_total_mac_number': it has free_vars"):
        relay.analysis.get_total_mac_number


def test_split_indexes_iterates_and_has_a_length_without_being_typed():
    x = relay.var("x", shape=(1, 6, 4))
    parts = relay.split(x, 3, axis=1)
    assert len(parts) == 3
    assert len(relay.split(x, [1, 4], axis=1)) == 3
    first = parts[0]
    assert isinstance(first, relay.TupleGetItem) and first.index == 0
    assert parts[-1].index == 2
    with pytest.raises(IndexError):
        parts[3]
    assert [p.index for p in parts] == [0, 1, 2]
    # As in TVM, building the graph types nothing: no /* ty=... */ yet.
    assert "ty=" not in str(first)
    y = relay.concatenate([parts[2], parts[0]], axis=1)
    assert "Tensor[(1, 4, 4), float32]" in typed_text(y)
    assert parts.astuple().same_as(parts)


def test_batch_norm_result_zero_is_the_normalised_tensor():
    x = relay.var("x", shape=(1, 4, 2, 2))
    stats = [relay.var(n, shape=(4,)) for n in ("g", "b", "m", "v")]
    bn = relay.nn.batch_norm(x, *stats)
    assert len(bn) == 3
    text = typed_text(relay.nn.relu(bn[0]))
    assert "%1 = %0.0 /* ty=Tensor[(1, 4, 2, 2), float32] */;" in text


def test_a_call_of_any_tuple_type_indexes_by_its_type():
    a = relay.var("a", shape=(3,))
    fn = relay.Function([a], relay.Tuple([a, a]))
    call = relay.Call(fn, [relay.var("z", shape=(3,))])
    assert len(call) == 2
    assert call[1].index == 1


def test_a_call_of_tensor_type_has_no_items_but_is_true():
    x = relay.var("x", shape=(2,))
    y = relay.nn.relu(x)
    assert y  # an expression is true, whatever its length would be
    with pytest.raises(TypeError, match="is not a tuple"):
        y[0]
    with pytest.raises(TypeError, match="is not a tuple"):
        len(y)


def test_tuple_indexing_returns_the_field():
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(2,))
    t = relay.Tuple([x, y])
    assert t[1].same_as(y)
    assert t[-2].same_as(x)
    with pytest.raises(IndexError):
        t[2]


def test_astype_is_a_cast():
    x = relay.var("x", shape=(2,))
    assert str(x.astype("float16")).endswith('cast(%x, dtype="float16")')


def test_constant_data_and_run_outputs_answer_numpy_as_tvm_ndarrays_do():
    import numpy as np

    c = relay.const(np.arange(4, dtype="float32").reshape(2, 2))
    assert not c.data.flags.writeable  # IR nodes are immutable
    copy = c.data.numpy()
    assert type(copy) is np.ndarray and copy.flags.writeable
    copy[0, 0] = 7
    assert c.data[0, 0] == 0
    np.testing.assert_array_equal(c.data.asnumpy(), [[0, 1], [2, 3]])
    x = relay.var("x", shape=(2,))
    out = carve.run(carve.IRModule.from_expr(relay.nn.relu(x)), {"x": np.array([-1, 2], "float32")})
    np.testing.assert_array_equal(out[0].numpy(), [0, 2])
    assert isinstance(out[0], np.ndarray)


def conv_add_relu():
    import numpy as np

    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.const(np.ones((4, 3, 3, 3), "float32"))
    conv = relay.nn.conv2d(x, w, kernel_size=(3, 3), channels=4)
    return relay.nn.relu(relay.add(conv, relay.const(np.ones((1, 4, 1, 1), "float32"))))


def test_rewrite_with_a_pattern_callback_as_tvm_code_writes_it():
    from carve.relay.dataflow_pattern import DFPatternCallback, is_constant, is_op, rewrite, wildcard

    class AddConstToSubtract(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.x = wildcard()
            self.c = is_constant()
            self.pattern = is_op("add")(self.x, self.c)

        def callback(self, pre, post, node_map):
            assert pre.op.name == "add" and self.c in node_map
            return relay.subtract(node_map[self.x][0], node_map[self.c][0])

    out = rewrite(AddConstToSubtract(), conv_add_relu())
    text = str(out)
    assert "subtract(%0, meta[relay.Constant][1])" in text and "add(" not in text
    # Returning post means no change; a callback list runs in order.
    class Keep(DFPatternCallback):
        def __init__(self):
            super().__init__(rewrite_once=True)
            self.pattern = is_op("nn.relu")(wildcard())

        def callback(self, pre, post, node_map):
            return post

    y = conv_add_relu()
    assert rewrite([Keep()], y).same_as(y)


def test_rewrite_runs_to_a_fixpoint_and_types_when_asked():
    from carve.relay.dataflow_pattern import DFPatternCallback, is_op, rewrite, wildcard

    class DropDoubleRelu(DFPatternCallback):
        def __init__(self):
            super().__init__(require_type=True)
            self.x = wildcard()
            self.pattern = is_op("nn.relu")(is_op("nn.relu")(self.x))

        def callback(self, pre, post, node_map):
            assert str(pre.checked_type) == "Tensor[(2), float32]"
            return relay.nn.relu(node_map[self.x][0])

    x = relay.var("x", shape=(2,))
    y = x
    for _ in range(5):
        y = relay.nn.relu(y)
    # Five relus, then three, two, one: rounds until nothing changes (typed,
    # as require_type asked).
    text = str(DropDoubleRelu().rewrite(y))
    assert text.count("nn.relu") == 1 and "nn.relu(%x) /* ty=Tensor[(2), float32] */" in text


def test_rewrite_errors_reach_the_caller():
    from carve.relay.dataflow_pattern import DFPatternCallback, is_op, rewrite, wildcard

    class Raises(DFPatternCallback):
        def __init__(self):
            super().__init__()
            self.pattern = is_op("nn.relu")(wildcard())

        def callback(self, pre, post, node_map):
            raise RuntimeError("from the callback")

    with pytest.raises(RuntimeError, match="from the callback"):
        rewrite(Raises(), conv_add_relu())

    class NotAnExpr(Raises):
        def callback(self, pre, post, node_map):
            return 3

    with pytest.raises(TypeError, match=r"NotAnExpr.callback returned 3, not an expression"):
        rewrite(NotAnExpr(), conv_add_relu())

    class Grows(Raises):
        def callback(self, pre, post, node_map):
            return relay.nn.relu(post)

    # TVM aborts after 100 rounds; carve stops with an error naming the callback.
    with pytest.raises(carve.CarveError, match="Grows"):
        rewrite(Grows(), relay.nn.relu(relay.var("x", shape=(2,))))

    class Kept(Raises):
        def callback(self, pre, post, node_map):
            self.kept = node_map
            return post

    kept = Kept()
    rewrite(kept, conv_add_relu())
    with pytest.raises(ValueError, match="only while its callback runs"):
        kept.kept[kept.pattern]

    class NoPattern(DFPatternCallback):
        pass

    with pytest.raises(ValueError, match="NoPattern has no pattern"):
        rewrite(NoPattern(), conv_add_relu())


def test_type_patterns_type_an_untyped_expression_as_tvms_matcher_does():
    from carve.relay.dataflow_pattern import has_dtype, has_shape, is_op, wildcard

    x = relay.var("x", shape=(1, 4), dtype="float16")
    y = relay.nn.relu(x)
    assert wildcard().has_dtype("float16").match(x)
    assert not has_dtype("float32").match(y)
    assert is_op("nn.relu")(wildcard()).has_shape([1, 4]).match(y)
    assert has_shape([1, 4]).why(y)
    # An expression that does not type-check says why, as TVM raises.
    bad = relay.add(relay.var("a", shape=(2,)), relay.var("b", shape=(3,)))
    with pytest.raises(carve.CarveError, match="add"):
        has_dtype("float32").match(bad)
    # Patterns that read no types leave the expression untyped.
    z = relay.nn.relu(relay.var("z", shape=(2,)))
    assert is_op("nn.relu")(wildcard()).match(z) and "ty=" not in str(z)


def dense_bias_relu_module():
    import numpy as np

    x = relay.var("x", shape=(1, 8))
    w = relay.const(np.ones((4, 8), "float32"))
    b = relay.const(np.ones((4,), "float32"))
    y = relay.nn.relu(relay.nn.bias_add(relay.nn.dense(x, w), b))
    return carve.IRModule.from_expr(relay.Function([x], y))


def test_a_target_of_composites_only_needs_no_backend():
    from carve.relay import transform
    from carve.relay.dataflow_pattern import is_constant, is_op, wildcard

    pattern = is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.dense")(wildcard(), is_constant()),
                                                    is_constant()))
    seq = carve.transform.Sequential([
        transform.InferType(),
        transform.MergeComposite([("mine.dense_bias_relu", pattern, lambda call: True)]),
        transform.AnnotateTarget(["mine"]),
        transform.MergeCompilerRegions(),
        transform.PartitionGraph(),
    ])
    mod = seq(dense_bias_relu_module())
    # TVM's IRModule.functions: GlobalVar -> function.
    attrs = {gv.name_hint: f.attrs for gv, f in mod.functions.items()}
    assert attrs["tvmgen_default_mine_main_0"]["Compiler"] == "mine"
    # Without such a composite the name is a misspelt backend, not a no-op.
    with pytest.raises(carve.CarveError, match=r"unknown backend 'dnl' \(did you mean 'dnnl'\?\); "
                       r"nor has 'dnl' rules registered .* composite named 'dnl\.\*'"):
        transform.AnnotateTarget(["dnl"])(transform.InferType()(dense_bias_relu_module()))


def test_ir_transform_update_func_and_concrete_shape():
    import carve as tvm

    assert tvm.ir.transform.Sequential is carve.transform.Sequential
    mod = relay.transform.InferType()(dense_bias_relu_module())
    assert mod["main"].body.checked_type.concrete_shape == (1, 4)
    x = relay.var("x", shape=(1, 8))
    mod.update_func(mod.get_global_var("main"), relay.Function([x], relay.nn.relu(x)))
    assert str(mod["main"].body).endswith("nn.relu(%x)")
    dynamic = relay.TensorType([None, 4])
    with pytest.raises(ValueError, match="dynamic dimension"):
        dynamic.concrete_shape


def test_passes_written_in_python_run_alone_and_in_a_gated_sequential():
    import carve as tvm

    @tvm.transform.module_pass(opt_level=1)
    def add_identity(mod, ctx):
        assert ctx.opt_level in (2, 3)
        x = relay.var("x", shape=(1, 8))
        mod["identity"] = relay.Function([x], x)
        return mod

    mod = dense_bias_relu_module()
    out = add_identity(mod)
    assert sorted(gv.name_hint for gv in out.functions) == ["identity", "main"]
    assert [gv.name_hint for gv in mod.functions] == ["main"]  # the input is left as it was

    @relay.transform.function_pass(opt_level=3)
    class ReluToSigmoid:
        def __init__(self, op):
            self.op = op

        def transform_function(self, func, mod, ctx):
            from carve.relay.dataflow_pattern import DFPatternCallback, is_op, rewrite, wildcard

            outer = self

            class Swap(DFPatternCallback):
                def __init__(self):
                    super().__init__()
                    self.x = wildcard()
                    self.pattern = is_op("nn.relu")(self.x)

                def callback(self, pre, post, node_map):
                    return relay.op.op_function(outer.op)(node_map[self.x][0])

            return rewrite(Swap(), func)

    swap = ReluToSigmoid("sigmoid")
    assert isinstance(swap, tvm.transform.Pass)
    seq = tvm.transform.Sequential([relay.transform.InferType(), swap])
    # opt_level 3: skipped at TVM's default level 2, run at 3, not when disabled.
    assert "nn.relu" in str(seq(mod)["main"])
    with tvm.transform.PassContext(opt_level=3):
        assert "sigmoid(" in str(seq(mod)["main"])
    with tvm.transform.PassContext(opt_level=3, disabled_pass=["ReluToSigmoid"]):
        assert "nn.relu" in str(seq(mod)["main"])
    # Applied directly, a pass runs whole.
    assert "sigmoid(" in str(swap(mod)["main"])


def test_python_pass_errors():
    import carve as tvm

    with pytest.raises(TypeError, match="opt_level is required"):
        tvm.transform.module_pass(lambda mod, ctx: mod)
    with pytest.raises(ValueError, match="cannot be named 'InferType'"):
        tvm.transform.module_pass(lambda mod, ctx: mod, opt_level=0, name="InferType")

    @tvm.transform.module_pass(opt_level=0)
    def broken(mod, ctx):
        raise KeyError("inside the pass")

    with pytest.raises(KeyError, match="inside the pass"):
        broken(dense_bias_relu_module())

    @tvm.transform.module_pass(opt_level=0)
    def returns_none(mod, ctx):
        return None

    with pytest.raises(TypeError, match="returned None, not an IRModule"):
        returns_none(dense_bias_relu_module())


def test_infer_type_local_types_an_expression():
    x = relay.var("x", shape=(2, 3))
    y = relay.nn.relu(x)
    assert str(relay.transform.InferTypeLocal(y)) == "Tensor[(2, 3), float32]"
    assert str(y.checked_type) == "Tensor[(2, 3), float32]"
    f = relay.Function([x], y)
    assert str(relay.transform.InferTypeLocal(f)) == "fn (Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32]"


def test_contrib_pattern_tables_feed_merge_composite():
    from carve.relay.op.contrib import arm_compute_lib, bnns, dnnl, nnapi, tensorrt

    for table in (dnnl.pattern_table(), tensorrt.pattern_table(), bnns.pattern_table(),
                  nnapi.pattern_table(), arm_compute_lib.arm_compute_lib_pattern_table()):
        assert table and all(len(row) in (2, 3) and isinstance(row[0], str) for row in table)
    import numpy as np

    # TVM's dnnl patterns take the bias as `add` (its flow rewrites bias_add first).
    x = relay.var("x", shape=(1, 8))
    y = relay.nn.dense(x, relay.const(np.ones((4, 8), "float32")))
    y = relay.nn.relu(relay.add(y, relay.const(np.ones((4,), "float32"))))
    mod = relay.transform.InferType()(carve.IRModule.from_expr(relay.Function([x], y)))
    out = relay.transform.MergeComposite(dnnl.pattern_table())(mod)
    assert 'Composite="dnnl.dense_bias_relu"' in out.astext(show_meta_data=False)
    with pytest.raises(NotImplementedError, match="disables exactly"):
        arm_compute_lib.arm_compute_lib_pattern_table(disabled_ops=[])


def test_tensorrt_runtime_is_reported_absent():
    from carve.relay.op.contrib import tensorrt

    assert tensorrt.is_tensorrt_runtime_enabled() is False
