"""carve.partition_for, codegen, run and compare."""

import json
import os

import numpy as np
import pytest

import carve

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DNNL_EXAMPLE = os.path.join(SOURCE, "examples", "dnnl", "conv_add_relu.relay")


@pytest.fixture
def mod():
    return carve.load(DNNL_EXAMPLE)


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    return {
        "data": rng.standard_normal((1, 32, 14, 14), dtype=np.float32),
        "weight": rng.standard_normal((32, 32, 3, 3), dtype=np.float32) * 0.1,
        "bias": rng.standard_normal((32, 1, 1), dtype=np.float32),
    }


def test_partition_for(mod):
    out = carve.partition_for(mod, "dnnl")
    assert "tvmgen_default_dnnl_main_0" in out
    assert out["tvmgen_default_dnnl_main_0"].attrs["Compiler"] == "dnnl"
    with pytest.raises(carve.CarveError, match="did you mean 'dnnl'"):
        carve.partition_for(mod, "dnl")


def test_partition_for_binds_params(mod):
    params = {k: v for k, v in inputs().items() if k != "data"}
    out = carve.partition_for(mod, "dnnl", params=params)
    assert [p.name_hint for p in out["main"].params] == ["data"]


def test_codegen_in_memory(mod):
    graphs = carve.codegen(carve.partition_for(mod, "dnnl"), "dnnl")
    (symbol, artifact), = graphs.items()
    assert symbol == "tvmgen_default_dnnl_main_0"
    graph = json.loads(artifact["graph"])
    assert any(n.get("name") == "dnnl.conv2d_bias_relu" for n in graph["nodes"])


def test_codegen_writes_files(mod, tmp_path):
    written = carve.codegen(mod, "dnnl", str(tmp_path), params={"weight": inputs()["weight"]})
    names = sorted(os.path.basename(p) for p in written)
    assert "tvmgen_default_dnnl_main_0.json" in names
    assert any(n.endswith(".npy") for n in names)
    const = [p for p in written if p.endswith(".npy")][0]
    assert np.load(const).shape == (32, 32, 3, 3)


def reference(x):
    """numpy's conv2d + add + relu + max_pool2d + global_avg_pool2d + softmax."""
    data, weight, bias = x["data"], x["weight"], x["bias"]
    padded = np.pad(data, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((1, 32, 14, 14), np.float64)
    for i in range(3):
        for j in range(3):
            conv += np.einsum("nchw,oc->nohw", padded[:, :, i:i + 14, j:j + 14], weight[:, :, i, j])
    relu = np.maximum(conv + bias, 0)
    pooled = relu.reshape(1, 32, 7, 2, 7, 2).max(axis=(3, 5))
    avg = pooled.mean(axis=(2, 3))
    e = np.exp(avg - avg.max())
    return e / e.sum()


def test_run_matches_numpy_and_does_not_copy(mod):
    x = inputs()
    outs = carve.run(mod, x)
    assert len(outs) == 1 and outs[0].shape == (1, 32) and outs[0].dtype == np.float32
    np.testing.assert_allclose(outs[0], reference(x), rtol=1e-4, atol=1e-6)
    assert not outs[0].flags.owndata and not outs[0].flags.writeable  # a view of carve's tensor
    part = carve.run(carve.partition_for(mod, "dnnl"), x)  # dnnl functions run on oneDNN
    np.testing.assert_allclose(part[0], outs[0], rtol=1e-4, atol=1e-6)


def test_run_params_and_errors(mod):
    x = inputs()
    outs = carve.run(mod, {"data": x["data"]}, params={"weight": x["weight"], "bias": x["bias"]})
    np.testing.assert_allclose(outs[0], reference(x), rtol=1e-4, atol=1e-6)
    with pytest.raises(carve.CarveError, match="no value for %bias"):
        carve.run(mod, {"data": x["data"], "weight": x["weight"]})
    with pytest.raises(carve.CarveError, match="has no parameter %nope"):
        carve.run(mod, dict(x, nope=x["bias"]))
    with pytest.raises(carve.CarveError, match="data"):
        carve.run(mod, dict(x, data=x["data"][:, :3]))
    # A misspelt name is reported as unknown (with @main's names), not as missing.
    typo = {"dta" if k == "data" else k: v for k, v in x.items()}
    with pytest.raises(carve.CarveError,
                       match=r"no parameter %dta \(its parameters: %data, %weight, %bias\)"):
        carve.run(mod, typo)


def test_params_of_the_wrong_kind_raise_type_errors(mod):
    with pytest.raises(TypeError, match="params must be a dict"):
        carve.partition_for(mod, "dnnl", params=[inputs()["weight"]])
    with pytest.raises(TypeError, match=r"params\['weight'\] is None"):
        carve.partition_for(mod, "dnnl", params={"weight": None})
    with pytest.raises(TypeError, match="a name is a str"):
        carve.partition_for(mod, "dnnl", params={1: inputs()["weight"]})
    with pytest.raises(TypeError, match="inputs must be a dict"):
        carve.run(mod, [inputs()["data"]])


def test_partition_for_ignores_params_main_does_not_have(mod):
    # As TVM's bind_params_by_name (src/relay/backend/utils.cc): a name that
    # is no parameter of @main is skipped, so one params dict serves several
    # variants of a model.
    params = {k: v for k, v in inputs().items() if k != "data"}
    out = carve.partition_for(mod, "dnnl", params=dict(params, unused=params["bias"]))
    assert [p.name_hint for p in out["main"].params] == ["data"]


def test_compare(mod):
    report = carve.compare(mod, "dnnl", inputs=inputs())
    assert report.ok and report.offloaded == 1 and report.backends == "dnnl"
    assert report.outputs[0]["type"] == "Tensor[(1, 32), float32]"
    assert report.outputs[0]["max_rel"] < 1e-4
    assert [c["name"] for c in report.composites] == ["dnnl.conv2d_bias_relu"]
    assert report.composites[0]["calls"] == 1
    assert report.text.startswith("compare: 1 offloaded function for dnnl\noutputs:\n")
    assert report.text.endswith("result: ok\n")
    assert "tvmgen_default_dnnl_main_0" in report.partitioned


def test_compare_tolerance_can_fail(mod):
    report = carve.compare(mod, "dnnl", inputs=inputs(), rtol=0.0, atol=0.0)
    # With no tolerance, any difference at all fails.
    errors = [e["max_abs"] for e in report.outputs + report.composites]
    assert report.ok == all(e == 0 for e in errors)
    assert report.text.endswith("result: ok\n" if report.ok else "result: FAIL: beyond tolerance\n")
    with pytest.raises(carve.CarveError, match="non-negative"):
        carve.compare(mod, "dnnl", inputs=inputs(), rtol=-1.0)


def test_compare_counts_rule_and_worst(mod):
    report = carve.compare(mod, "dnnl", inputs=inputs())
    out = report.outputs[0]
    assert out["rule"] == "|a-b| <= atol + rtol*|b| or |a-b| <= rtol*max|b|"
    assert (out["rtol"], out["atol"]) == (1e-4, 1e-5)
    assert out["elements"] == 32 and out["out_of_tolerance"] == 0
    assert out["nan_one_side"] == 0 and not out["exploded"]
    assert out["scale"] > 0 and out["max_magnitude"] >= out["scale"]
    if out["max_abs"] > 0:
        # The worst index is a coordinate per dimension and its values differ by max_abs.
        assert len(out["worst_index"]) == 2
        assert abs(out["worst_got"] - out["worst_ref"]) == pytest.approx(out["max_abs"])
    composite = report.composites[0]
    assert composite["elements"] == 1 * 32 * 14 * 14 and composite["worst_call"] in (None, 0)
    assert report.within_tolerance and not report.nothing_offloaded and report.warnings == []
    assert "out of tolerance" in report.text and "rule: |a-b| <= atol + rtol*|b|" in report.text

    strict = carve.compare(mod, "dnnl", inputs=inputs(), rtol=0.0, atol=0.0)
    # With no tolerance every differing element is out, and the report counts them.
    differing = strict.outputs[0]["out_of_tolerance"]
    assert (differing > 0) == (strict.outputs[0]["max_abs"] > 0)
    assert strict.outputs[0]["rtol"] == 0.0


def test_compare_nothing_offloaded():
    # Nothing of this module is offloadable to dnnl (no supported op).
    m = carve.parse('#[version = "0.0.5"]\ndef @main(%x: Tensor[(4), float32]) { less(%x, %x) }')
    x = {"x": np.ones(4, dtype="float32")}
    report = carve.compare(m, "dnnl", inputs=x)
    assert report.nothing_offloaded and report.ok
    assert "compare: nothing offloaded" in report.text
    assert report.text.endswith("result: nothing offloaded\n")
    required = carve.compare(m, "dnnl", inputs=x, require_offload=True)
    assert not required.ok and required.within_tolerance
    assert required.text.endswith("result: FAIL: nothing offloaded (--require-offload)\n")


def test_partition_for_names_the_wrong_backend_argument(mod):
    # A TypeError that says what is expected, not pybind11's RuntimeError
    # "Unable to cast Python instance"; an unknown name lists the known ones.
    with pytest.raises(TypeError, match="a str or a list of str, not NoneType"):
        carve.partition_for(mod, None)
    with pytest.raises(TypeError, match="not list"):
        carve.partition_for(mod, ["dnnl", 3])
    with pytest.raises(carve.CarveError, match=r"unknown backend 'nosuch' \(known: .*dnnl"):
        carve.partition_for(mod, "nosuch")
    # An empty name is a name lost in editing, not one to skip.
    for names in ["", "dnnl,", ["dnnl", ""], ",dnnl"]:
        with pytest.raises(carve.CarveError, match=r"an empty backend name in .*\(known: .*dnnl"):
            carve.partition_for(mod, names)


def test_compare_reports_an_unknown_backend_before_the_inputs(mod):
    # The backend is the first thing wrong here: the error names it and the
    # known ones, not the inputs that were never given.
    with pytest.raises(carve.CarveError, match=r"unknown backend 'nosuch' \(known: .*dnnl"):
        carve.compare(mod, "nosuch")
    with pytest.raises(carve.CarveError, match="an empty backend name"):
        carve.compare(mod, "dnnl,", inputs=inputs())
    with pytest.raises(TypeError, match="a str or a list of str"):
        carve.compare(mod, 3)


def test_codegen_and_annotate_target_check_backend_names(mod):
    # codegen(mod, "") found no functions and returned [] as if it worked.
    for names in ["", "dnnl,bnns"]:
        with pytest.raises(carve.CarveError, match="codegen takes one backend name"):
            carve.codegen(mod, names)
    with pytest.raises(carve.CarveError, match="an empty backend name"):
        carve.transform.AnnotateTarget(["dnnl", ""])(mod)


def test_merge_composite_table_entries_are_checked(mod):
    # pybind11's RuntimeError "Unable to cast Python instance" said nothing.
    for table in [[("x", 3)], [3], [("x",)]]:
        with pytest.raises(TypeError, match=r"a pattern table entry is \(name: str, pattern\)"):
            carve.transform.MergeComposite(table)(mod)
