"""carve.dataflow_pattern builders, match / partition / why, and carve.patterns (the DSL)."""

import pytest

import carve
from carve import relay
from carve.dataflow_pattern import (FunctionPattern, has_attr, has_dtype, has_shape, has_type,
                                    is_constant, is_op, is_tuple, is_tuple_get_item, is_var,
                                    wildcard)

TEXT = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4, 8, 8), float32]) {
  %0 = nn.conv2d(%x, meta[relay.Constant][0], padding=[1, 1, 1, 1]);
  %1 = nn.bias_add(%0, meta[relay.Constant][1]);
  %2 = nn.relu(%1);
  %3 = (%2, %x);
  %4 = %3.0;
  nn.softmax(%4)
}
"""


@pytest.fixture
def mod():
    # Constants built from Python: the text's meta references need a metadata section.
    x = relay.var("x", shape=(1, 4, 8, 8))
    conv = relay.nn.conv2d(x, relay.const(_ones((4, 4, 3, 3))), padding=(1, 1))
    bias = relay.nn.bias_add(conv, relay.const(_ones((4,))))
    tup = relay.Tuple([relay.nn.relu(bias), x])
    body = relay.nn.softmax(relay.TupleGetItem(tup, 0))
    return carve.transform.InferType()(carve.IRModule.from_expr(relay.Function([x], body)))


def _ones(shape):
    import numpy as np

    return np.ones(shape, dtype="float32")


def nodes(mod):
    softmax = mod["main"].body
    get = softmax.args[0]
    relu = get.tuple_value.fields[0]
    bias = relu.args[0]
    conv = bias.args[0]
    return softmax, get, relu, bias, conv


def test_is_op_call_and_is_constant(mod):
    _, _, relu, bias, conv = nodes(mod)
    pat = is_op("nn.conv2d")(wildcard(), is_constant())
    assert pat.match(conv)
    assert not pat.match(bias)
    assert not is_op("nn.conv2d")(is_constant(), wildcard()).match(conv)


def test_is_var(mod):
    conv = nodes(mod)[4]
    assert is_op("nn.conv2d")(is_var("x"), wildcard()).match(conv)
    assert not is_op("nn.conv2d")(is_var("y"), wildcard()).match(conv)


def test_optional_and_alternation(mod):
    _, _, relu, bias, conv = nodes(mod)
    conv_pat = is_op("nn.conv2d")(wildcard(), wildcard())
    pat = is_op("nn.relu")(conv_pat.optional(lambda x: is_op("nn.bias_add")(x, wildcard())))
    assert pat.match(relu)
    alt = is_op("nn.relu")(wildcard()) | is_op("nn.bias_add")(wildcard(), wildcard())
    assert alt.match(relu) and alt.match(bias) and not alt.match(conv)


def test_has_attr(mod):
    conv = nodes(mod)[4]
    assert is_op("nn.conv2d")(wildcard(), wildcard()).has_attr({"padding": [1, 1, 1, 1]}).match(conv)
    assert not has_attr({"padding": [0, 0, 0, 0]}, is_op("nn.conv2d")(wildcard(), wildcard())).match(conv)


def test_has_type_dtype_shape(mod):
    relu = nodes(mod)[2]
    assert has_dtype("float32").match(relu)
    assert not has_dtype("int8").match(relu)
    assert has_shape((1, 4, 8, 8)).match(relu)
    assert has_shape((1, None, 8, 8)).match(relu)
    assert not has_shape((1, 4)).match(relu)
    assert has_type(relay.TensorType((1, 4, 8, 8), "float32")).match(relu)
    assert wildcard().has_type(relay.TensorType((1, 4, 8, 8))).match(relu)


def test_is_tuple_and_tuple_get_item(mod):
    get = nodes(mod)[1]
    assert is_tuple_get_item(is_tuple([wildcard(), is_var()]), 0).match(get)
    assert is_tuple_get_item(wildcard()).match(get)
    assert not is_tuple_get_item(wildcard(), 1).match(get)
    assert not FunctionPattern(None, wildcard()).match(get)


def test_partition(mod):
    pat = is_op("nn.relu")(is_op("nn.bias_add")(is_op("nn.conv2d")(wildcard(), wildcard()), wildcard()))
    out = pat.partition(mod["main"].body, attrs={"Composite": "x.conv"})
    text = str(out)
    assert 'PartitionedFromPattern="nn.conv2d_nn.bias_add_nn.relu_"' in text
    assert 'Composite="x.conv"' in text
    rejected = pat.partition(mod["main"].body, check=lambda root: False)
    assert rejected.same_as(mod["main"].body)


def test_why(mod):
    conv = nodes(mod)[4]
    why = is_op("nn.conv2d")(is_constant(), wildcard()).why(conv)
    assert not why.matched and why.verdict == "no_match"
    assert "expected a constant" in why.reason
    assert is_op("nn.conv2d")(wildcard(), is_constant()).why(conv).matched


def test_find_matches(mod):
    matches = is_op("nn.relu")(wildcard()).find_matches(mod["main"])
    assert len(matches) == 1 and matches[0][0].op.name == "nn.relu"


def test_pattern_prints_as_dsl():
    assert str(is_op("nn.relu")(wildcard())) == "nn.relu(_)"


def test_unknown_op_is_reported_when_used(mod):
    pat = is_op("nn.conv3")(wildcard())
    with pytest.raises(carve.CarveError, match="did you mean"):
        pat.match(nodes(mod)[4])


DSL = """
pattern conv_relu = nn.relu(nn.conv2d(_, const));
backend pytest_dsl {
  ops nn.relu, nn.softmax;
  composite conv_bias_relu = nn.relu(nn.bias_add(nn.conv2d(_, const), const));
}
"""


def test_patterns_parse_and_table(mod):
    lib = carve.patterns.parse(DSL, "mine.pat")
    assert list(lib.patterns) == ["conv_relu"]
    assert lib.backends == ["pytest_dsl"]
    table = lib.table()
    assert [name for name, _ in table] == ["pytest_dsl.conv_bias_relu"]
    merged = carve.transform.MergeComposite(table)(mod)
    assert 'Composite="pytest_dsl.conv_bias_relu"' in merged.astext()
    assert lib["pytest_dsl.conv_bias_relu"].match(nodes(mod)[2])


def test_patterns_load_and_register(tmp_path, mod):
    path = tmp_path / "mine.pat"
    path.write_text(DSL)
    lib = carve.patterns.load(str(path))
    assert lib.register() == ["pytest_dsl"]
    out = carve.partition_for(mod, "pytest_dsl")
    assert "tvmgen_default_pytest_dsl_main_0" in out


def test_patterns_parse_error_has_location():
    with pytest.raises(carve.CarveError) as info:
        carve.patterns.parse("pattern p = nn.reluu(_);", "bad.pat")
    assert str(info.value).startswith("bad.pat:1:13: error:")


def test_single_pattern_from_dsl(mod):
    assert carve.patterns.pattern("nn.conv2d(_, const)").match(nodes(mod)[4])


def test_builtin_spec():
    lib = carve.patterns.builtin("dnnl")
    assert "dnnl" in lib.backends
    assert any(name == "dnnl.conv2d_bias_relu" for name, _ in lib.table("dnnl"))


def test_is_expr_is_if_is_let_and_dominates():
    from carve.dataflow_pattern import dominates, is_expr, is_if, is_let

    x = relay.var("x", shape=(2,), dtype="float32")
    c = relay.var("c", shape=(), dtype="bool")
    one = relay.const(1.0)
    assert is_op("add")(wildcard(), is_expr(one)).match(relay.add(x, one))
    assert not is_op("add")(wildcard(), is_expr(one)).match(relay.add(x, relay.const(2.0)))
    branch = relay.If(c, relay.nn.relu(x), x)
    assert is_if(is_var("c"), is_op("nn.relu")(wildcard()), wildcard()).match(branch)
    v = relay.var("v")
    let = relay.Let(v, relay.nn.relu(x), relay.add(v, v))
    assert is_let(wildcard(), is_op("nn.relu")(wildcard()), wildcard()).match(let)
    # A relu that dominates a chain of elementwise ops ending in tanh.
    r = relay.nn.relu(x)
    chain = relay.tanh(relay.add(relay.exp(r), relay.negative(r)))
    elementwise = wildcard().has_attr({"TOpPattern": 0}) | wildcard().has_attr({"TOpPattern": 1})
    pat = dominates(is_op("nn.relu")(wildcard()), is_op("add")(wildcard(), wildcard()) | elementwise(wildcard()),
                    is_op("tanh")(wildcard()))
    typed = carve.transform.InferType()(carve.IRModule.from_expr(chain))
    assert pat.match(typed["main"].body)
    assert not pat.match(typed["main"].body.args[0])


def test_capture_and_arithmetic_sugar(mod):
    bias = nodes(mod)[3]
    assert is_op("nn.bias_add")(wildcard().capture("conv"), is_constant()).match(bias)
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(2,))
    assert (wildcard() + wildcard()).match(x + y)
    assert (wildcard() * wildcard()).match(x * y)
    assert not (wildcard() - wildcard()).match(x + y)


def test_has_shape_dimensions_are_checked():
    # A negative extent made a pattern that matched nothing, silently; a
    # float failed with pybind11's "Unable to cast".
    with pytest.raises(ValueError, match="a shape dimension is 0 or more"):
        has_shape((-1, 3))
    with pytest.raises(TypeError, match="a shape dimension is an int, None .* not 2.5"):
        has_shape((2.5,))
    assert "Tensor[(2, _, ?), _]" in str(has_shape((2, None, "?")))
