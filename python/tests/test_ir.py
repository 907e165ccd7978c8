"""carve.parse / load, IRModule, expressions, the printer and structural equality."""

import os

import numpy as np
import pytest

import carve
from carve import relay

SMALL = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %y: Tensor[(1, 4), float32]) {
  %0 = add(%x, %y);
  nn.relu(%0)
}
"""


def test_parse_types_the_module():
    mod = carve.parse(SMALL)
    main = mod["main"]
    assert isinstance(main, relay.Function)
    assert [p.name_hint for p in main.params] == ["x", "y"]
    assert str(main.body.checked_type) == "Tensor[(1, 4), float32]"
    assert isinstance(main.body, relay.Call) and main.body.op.name == "nn.relu"


def test_load_reads_a_file(tmp_path):
    path = tmp_path / "small.relay"
    path.write_text(SMALL)
    assert carve.ir.structural_equal(carve.load(str(path)), carve.parse(SMALL))


def test_load_missing_file_raises():
    with pytest.raises(carve.CarveError, match="cannot read '/nonexistent/model.relay': No such file"):
        carve.load("/nonexistent/model.relay")


def test_load_of_a_directory_says_so(tmp_path):
    # It was read as an empty text and blamed for a missing version line.
    with pytest.raises(carve.CarveError, match="Is a directory"):
        carve.load(str(tmp_path))
    with pytest.raises(carve.CarveError, match="Is a directory"):
        carve.patterns.load(str(tmp_path))


def test_parse_error_carries_file_line_col():
    text = SMALL.replace("add(%x, %y)", "add(%x, %y")
    with pytest.raises(carve.CarveError) as info:
        carve.parse(text, "model.relay")
    message = str(info.value)
    assert message.startswith("model.relay:3:")
    assert "error:" in message and "^" in message
    assert isinstance(info.value, ValueError)


def test_type_error_carries_its_span():
    bad = SMALL.replace("%y: Tensor[(1, 4), float32]", "%y: Tensor[(4, 3), float32]")
    with pytest.raises(carve.CarveError, match=r"<string>:3:\d+: error: add"):
        carve.parse(bad)


def test_astext_and_str():
    mod = carve.parse(SMALL)
    text = mod.astext(show_meta_data=False)
    assert text.startswith('#[version = "0.0.5"]\ndef @main(')
    assert "/* ty=Tensor[(1, 4), float32] */" in text
    assert not str(mod).startswith("#[version")
    fn_text = mod["main"].astext(show_meta_data=False)
    assert fn_text.startswith('#[version = "0.0.5"]\nfn (%x')
    # The printed text parses back to the same module.
    assert carve.ir.structural_equal(carve.parse(text), mod)


def test_str_leaves_the_metadata_out_as_tvms_pretty_print():
    x = relay.var("x", shape=(2,))
    mod = carve.IRModule.from_expr(relay.Function([x], relay.add(x, relay.const(np.ones(2, np.float32)))))
    assert "meta[relay.Constant][0]" in str(mod)
    assert '"type_key"' not in str(mod) and '"type_key"' not in repr(mod)
    assert "the metadata section has been omitted" in str(mod)
    assert '"type_key"' in mod.astext()  # astext() keeps TVM's default, show_meta_data=True


def test_getitem_missing_function_is_a_key_error():
    with pytest.raises(KeyError):
        carve.parse(SMALL)["nope"]
    assert "main" in carve.parse(SMALL)
    assert len(carve.parse(SMALL)) == 1


def test_structural_equal_modulo_names():
    renamed = SMALL.replace("%x", "%a").replace("%y", "%b")
    assert carve.ir.structural_equal(carve.parse(SMALL), carve.parse(renamed))
    swapped = SMALL.replace("add(%x, %y)", "add(%y, %x)")
    assert not carve.ir.structural_equal(carve.parse(SMALL), carve.parse(swapped))


def test_assert_structural_equal_reports_the_first_difference():
    other = SMALL.replace("nn.relu(%0)", "nn.relu(%0)").replace("add(", "subtract(")
    with pytest.raises(carve.CarveError) as info:
        carve.ir.assert_structural_equal(carve.parse(SMALL), carve.parse(other))
    text = str(info.value)
    assert text.startswith("structural_equal check failed: ")
    assert "lhs: @main.body" in text
    # Both sides point into their source text.
    assert text.count("<string>:3:") == 2 and "subtract(%x, %y)" in text
    carve.ir.assert_structural_equal(carve.parse(SMALL), carve.parse(SMALL))


def test_structural_equal_free_vars():
    x = relay.var("x", shape=(2,))
    y = relay.var("y", shape=(2,))
    assert carve.ir.structural_equal(relay.nn.relu(x), relay.nn.relu(x))
    assert not carve.ir.structural_equal(relay.nn.relu(x), relay.nn.relu(y))
    assert carve.ir.structural_equal(relay.nn.relu(x), relay.nn.relu(y), map_free_vars=True)


def test_structural_hash():
    assert carve.ir.structural_hash(carve.parse(SMALL)) == carve.ir.structural_hash(carve.parse(SMALL))


def test_parse_expr():
    e = carve.parse_expr("free_var %x: Tensor[(2), float32];\nnn.relu(%x)")
    assert isinstance(e, relay.Call)


def test_from_expr_wraps_free_vars():
    x = relay.var("x", shape=(1, 4))
    mod = carve.IRModule.from_expr(relay.nn.relu(x))
    mod = carve.transform.InferType()(mod)
    assert [p.name_hint for p in mod["main"].params] == ["x"]
    assert str(mod["main"].checked_type) == "fn (Tensor[(1, 4), float32]) -> Tensor[(1, 4), float32]"


def test_setitem_adds_a_function():
    mod = carve.parse(SMALL)
    x = relay.var("z", shape=(3,))
    mod["other"] = relay.Function([x], relay.nn.relu(x))
    assert sorted(gv.name_hint for gv in mod.functions) == ["main", "other"]
    mod = carve.transform.InferType()(mod)
    assert str(mod["other"].body.checked_type) == "Tensor[(3), float32]"


def test_builders_check_ops_and_attributes():
    x = relay.var("x", shape=(1, 3, 8, 8))
    with pytest.raises(carve.CarveError, match="did you mean 'nn.conv2d'"):
        carve.relay.op.get("nn.conv2")
    with pytest.raises(carve.CarveError, match="unknown attribute 'padin'"):
        relay.nn.max_pool2d(x, padin=1)
    with pytest.raises(AttributeError):
        relay.nn.no_such_op


def test_constant_data_is_a_read_only_view():
    c = relay.const([[1.0, 2.0]])
    assert c.data.dtype.name == "float32" and c.data.shape == (1, 2)
    assert not c.data.flags.writeable
    assert relay.const(3).data.dtype.name == "int32"


def test_call_attrs_read_as_attributes():
    mod = carve.parse(SMALL.replace("nn.relu(%0)", "nn.softmax(%0, axis=0)"))
    assert mod["main"].body.attrs.axis == 0
    assert mod["main"].body.attrs["axis"] == 0


def test_empty_module_and_global_vars():
    mod = carve.IRModule()
    assert len(mod) == 0
    x = relay.var("x", shape=(2,))
    mod["f"] = relay.Function([x], x)
    gv = mod.get_global_var("f")
    assert isinstance(gv, relay.GlobalVar) and gv.name_hint == "f"
    assert [g.name_hint for g in mod.get_global_vars()] == ["f"]
    assert mod[gv].same_as(mod["f"])
    with pytest.raises(KeyError):
        mod.get_global_var("g")


def test_with_attr_and_expression_classes():
    x = relay.var("x", shape=(2,))
    f = relay.Function([x], relay.nn.relu(x)).with_attr("Compiler", "dnnl")
    assert f.attrs["Compiler"] == "dnnl"
    assert 'Compiler="dnnl"' in f.astext()
    t = relay.Tuple([x, x])
    get = relay.TupleGetItem(t, 1)
    assert isinstance(get, relay.TupleGetItem) and get.index == 1 and len(t) == 2
    assert isinstance(x, relay.Var) and not isinstance(x, relay.Call)
    with pytest.raises(TypeError, match="const"):
        x + 1


def test_bind_params_by_name():
    import numpy as np

    from carve.relay.build_module import bind_params_by_name

    mod = carve.parse(SMALL)
    bound = bind_params_by_name(mod["main"], {"y": np.ones((1, 4), "float32")})
    assert [p.name_hint for p in bound.params] == ["x"]
    assert isinstance(bound.body.args[0].args[1], relay.Constant)
    with pytest.raises(carve.CarveError, match="y"):
        bind_params_by_name(mod["main"], {"y": np.ones((2, 4), "float32")})


def test_tvm_parser_names():
    assert carve.ir.structural_equal(carve.parser.parse(SMALL), carve.parse(SMALL))
    assert carve.ir.structural_equal(carve.parser.fromtext(SMALL), relay.fromtext(SMALL))


def test_references_build_as_in_tvm():
    # TVM's relay.RefCreate(value), RefRead(ref), RefWrite(ref, value).
    x = relay.var("x", shape=(2,))
    r = relay.var("r")
    w = relay.var("w")
    cell = relay.RefCreate(x)
    write = relay.RefWrite(r, relay.add(relay.RefRead(r), x))
    body = relay.Let(r, cell, relay.Let(w, write, relay.RefRead(r)))
    mod = carve.IRModule.from_expr(relay.Function([x], body))
    mod = carve.transform.InferType()(mod)
    main = mod["main"]
    assert str(main.checked_type) == "fn (Tensor[(2), float32]) -> Tensor[(2), float32]"
    assert isinstance(cell, relay.RefCreate) and cell.value.same_as(x)
    assert isinstance(write, relay.RefWrite) and write.ref.same_as(r)
    assert isinstance(write.value.args[0], relay.RefRead) and write.value.args[0].ref.same_as(r)
    assert str(main.body.value.checked_type) == "ref(Tensor[(2), float32])"
    assert str(main.body.body.value.checked_type) == "()"
    expected = carve.parse("""#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32]) {
  let %r = ref(%x);
  let %w = ref_write(%r, add(ref_read(%r), %x));
  ref_read(%r)
}
""")
    assert carve.ir.structural_equal(mod, expected)


def test_tensor_type_rejects_what_the_parser_rejects():
    # A negative extent made a module whose text did not parse back; an
    # element count past int64 describes no tensor.
    with pytest.raises(carve.CarveError, match="invalid dimension -5"):
        relay.var("x", shape=(-5, 2))
    with pytest.raises(carve.CarveError, match="element count overflows 64 bits"):
        relay.var("x", shape=(2**62, 2**62))
    assert "?" in relay.var("x", shape=(None, 2)).astext()


def test_module_index_of_another_type_is_a_type_error():
    mod = carve.parse(SMALL)
    with pytest.raises(TypeError, match="not int"):
        mod[0]
    with pytest.raises(TypeError, match="not NoneType"):
        None in mod


def test_a_tvm_user_is_told_what_carve_lacks_and_what_to_use():
    x = relay.var("x", shape=(1, 3, 8, 8))
    w = relay.var("w", shape=(4, 3, 3, 3))
    # A str padding was split into characters ('s', 'a', ...) before.
    with pytest.raises(TypeError, match="nn.conv2d: padding is an int or a tuple of 2 or 4 ints, "
                                        "not 'same'"):
        relay.nn.conv2d(x, w, padding="same")
    with pytest.raises(TypeError, match="a pass applies to an IRModule, not Call"):
        carve.transform.InferType()(relay.nn.relu(x))
    with pytest.raises(AttributeError, match="carve.relay has no 'build': .*carve.run"):
        relay.build
    with pytest.raises(AttributeError, match="create_executor.*carve.run"):
        relay.create_executor
    with pytest.raises(AttributeError, match="carve has no operator 'nn.conv9d'"):
        relay.nn.conv9d
    with pytest.raises(TypeError, match="structural_hash takes an IRModule or an expression, not int"):
        carve.ir.structural_hash(3)


def test_repr_of_params_and_expressions_is_short_and_readable():
    mod = carve.parse(SMALL)
    params = mod["main"].params
    assert repr(params[0]) == "Var(%x: Tensor[(1, 4), float32])"
    # No free_var declarations in front of the expression itself.
    assert not repr(mod["main"].body).startswith("free_var")
    assert repr(relay.nn.relu(relay.var("q", shape=(2,)))) == "nn.relu(%q)"
