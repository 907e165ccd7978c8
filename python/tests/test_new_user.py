"""What a TVM user new to carve hits first: a model file where Relay text
belongs, error text that is not UTF-8, the seed guides' snippets typed as
they are written."""

import os

import pytest

import carve
from carve import relay

from conftest import SOURCE

ONNX_DATA = os.path.join(SOURCE, "tests", "frontend_onnx", "data")


def test_load_of_an_onnx_model_says_to_import_it():
    path = os.path.join(ONNX_DATA, "two_outputs.onnx")
    # Was a UnicodeDecodeError: the lexer's diagnostic quoted the model's
    # bytes as its source line.
    with pytest.raises(carve.CarveError, match=r"is not Relay text but binary data \(byte 0 is "
                       r"0x08\); an ONNX model is converted with `carve import .*from_onnx"):
        carve.load(path)


def test_error_text_that_is_not_utf8_is_still_a_carve_error(tmp_path):
    path = tmp_path / "latin1.relay"
    path.write_bytes(b'#[version = "0.0.5"]\n'
                     b'def @main(%x: Tensor[(1), float32]) { nn.rel(%x) } // caf\xe9\n')
    # The diagnostic escapes the byte (support/printable.h), so the text is
    # ASCII; the module's replacement decoding covers any that gets through.
    with pytest.raises(carve.CarveError, match=r"(?s)unknown operator 'nn.rel'.*caf\\xe9"):
        carve.load(str(path))


NHWC_CONV = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 8, 3), float32], %w: Tensor[(3, 3, 3, 4), float32], %b: Tensor[(4), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
  %1 = nn.bias_add(%0, %b, axis=3);
  nn.relu(%1)
}"""


def test_bnns_guides_convert_layout_snippet_runs_as_written():
    mod = carve.parse(NHWC_CONV)
    # shared/seeds/bnns-integration.txt, "For models with NHWC input layout":
    # TVM ignores the entries of ops without a convert function (bias_add,
    # relu); carve raised "'nn.bias_add' is not an op whose layout
    # ConvertLayout converts".
    with carve.transform.PassContext(opt_level=3):
        mod = relay.transform.InferType()(mod)
        with pytest.warns(UserWarning, match=r"ignoring desired layouts for nn.bias_add, nn.relu"):
            convert = relay.transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"],
                                                     "nn.bias_add": ["NCHW", "default"],
                                                     "nn.relu": ["NCHW"]})
        out = convert(mod)
    # NCHW / OIHW are conv2d's defaults, so the attributes are not printed.
    text = out.astext(show_meta_data=False)
    assert 'layout_transform(%x, src_layout="NHWC", dst_layout="NCHW")' in text
    assert "nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3])" in text
    carve.ir.assert_structural_equal(
        out, relay.transform.ConvertLayout({"nn.conv2d": ["NCHW", "default"]})(mod))
    # Only ops ConvertLayout cannot convert: nothing to do, said so.
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="names no op that ConvertLayout converts"):
        relay.transform.ConvertLayout({"nn.relu": ["NCHW"]})


def test_tvm_names_a_port_reaches_for_first_say_what_to_use():
    import carve as tvm

    # tvm.nd.array / tvm.cpu / graph_executor: the seeds' run steps.
    with pytest.raises(AttributeError, match=r"carve has no 'nd': .*numpy arrays"):
        tvm.nd.array
    with pytest.raises(AttributeError, match=r"carve has no 'cpu': .*carve.run\(mod"):
        tvm.cpu(0)
    with pytest.raises(AttributeError, match=r"carve has no 'contrib': .*graph_executor"):
        tvm.contrib.graph_executor
    with pytest.raises(AttributeError, match=r"module 'carve' has no attribute 'nope'"):
        tvm.nope
    # relay.analysis has the variable queries only (test_tvm_idioms.py).
    with pytest.raises(AttributeError, match=r"carve.relay.analysis has no 'check_kind': it has free_vars"):
        relay.analysis.check_kind
    with pytest.raises(AttributeError, match=r"carve.relay has no 'nope' \(no such function, module or operator\)"):
        relay.nope
    assert not hasattr(tvm, "nd")
    assert relay.nn.relu is relay.op.nn.relu


def test_byoc_post_flow_with_register_pattern_table():
    # shared/seeds/how-to-bring-your-own-codegen.txt, "Rules for graph
    # patterns" and "Relay Graph Transformation", for a target of one's own.
    from carve.relay.dataflow_pattern import is_op, wildcard
    from carve.relay.op.contrib.register import get_pattern_table, register_pattern_table
    from carve.relay import transform

    def _register_external_op_helper(op_name, supported=True):
        @carve.ir.register_op_attr(op_name, "target.newuser_dnnl")
        def _func_wrapper(expr):
            return supported
        return _func_wrapper

    for op in ["nn.conv2d", "nn.relu", "add"]:
        _register_external_op_helper(op)

    def make_pattern(with_bias=True):
        conv = is_op("nn.conv2d")(wildcard(), wildcard())
        conv_out = is_op("add")(conv, wildcard()) if with_bias else conv
        return is_op("nn.relu")(conv_out)

    @register_pattern_table("newuser_dnnl")
    def pattern_table():
        return [("newuser_dnnl.conv2d_bias_relu", make_pattern(with_bias=True)),
                ("newuser_dnnl.conv2d_relu", make_pattern(with_bias=False))]

    assert callable(pattern_table)  # the decorator gives the function back
    x = relay.var("data", shape=(1, 3, 8, 8))
    w = relay.var("weight", shape=(4, 3, 3, 3))
    b = relay.var("bias", shape=(1, 4, 1, 1))
    y = relay.nn.relu(relay.add(relay.nn.conv2d(x, w, padding=(1, 1)), b))
    y = relay.nn.relu(relay.nn.conv2d(y, relay.var("w2", shape=(4, 4, 1, 1))))
    mod = carve.IRModule.from_expr(y)
    mod = transform.MergeComposite(get_pattern_table("newuser_dnnl"))(mod)
    mod = transform.AnnotateTarget(["newuser_dnnl"])(mod)
    mod = transform.MergeCompilerRegions()(mod)
    mod = transform.PartitionGraph()(mod)
    text = mod.astext(show_meta_data=False)
    assert 'Composite="newuser_dnnl.conv2d_bias_relu"' in text
    assert 'Composite="newuser_dnnl.conv2d_relu"' in text
    assert text.count('Compiler="newuser_dnnl"') == 1
    # A built-in backend's table, as TVM's dnnl.py registers it; unknown: None.
    assert any(name == "dnnl.conv2d_relu" for name, *_ in get_pattern_table("dnnl"))
    assert get_pattern_table("no_such_compiler") is None


def test_from_onnx_returns_a_typed_module():
    # TVM's from_onnx infers types (DynamicToStatic); carve's returned @main
    # without a return type, and checked_type raised "no checked type yet".
    path = os.path.join(ONNX_DATA, "two_outputs.onnx")
    mod, _ = relay.frontend.from_onnx(path, shape={"x:0": (3, 2)})
    main = mod["main"]
    assert str(main.checked_type).startswith("fn (Tensor[(3, 2), float32]) -> (")
    assert main.ret_type is not None
    assert ") -> (Tensor[" in mod.astext(show_meta_data=False).splitlines()[1]


def test_from_onnx_of_relay_text_says_what_it_is(tmp_path):
    path = tmp_path / "model.relay"
    path.write_text('// a comment\n#[version = "0.0.5"]\ndef @main(%x: Tensor[(2), float32]) { nn.relu(%x) }\n')
    # Was "malformed or truncated ONNX model: the protobuf message does not parse".
    with pytest.raises(carve.CarveError, match="this is Relay text, not an ONNX model.*carve.load"):
        relay.frontend.from_onnx(str(path))
