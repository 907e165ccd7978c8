"""tvm.relay.op.contrib.register: pattern tables kept by compiler name.

The "How to Bring Your Own Codegen to TVM" post registers its table so:

    from carve.relay.op.contrib.register import register_pattern_table

    @register_pattern_table("mydnnl")
    def pattern_table():
        return [("mydnnl.conv2d_relu", is_op("nn.relu")(is_op("nn.conv2d")(wildcard(), wildcard())))]

    mod = carve.transform.MergeComposite(get_pattern_table("mydnnl"))(mod)

As in TVM, registering calls the function once and keeps the table it returns.
"""

from ....patterns import builtin, builtin_backends

_TABLES = {}


def register_pattern_table(compiler, table=None):
    """Keeps the table `table()` returns under `compiler`; without `table`, a decorator."""

    def keep(function):
        _TABLES[compiler] = function()
        return function

    return keep if table is None else keep(table)


def get_pattern_table(compiler):
    """The table registered for `compiler`, a built-in backend's own table (dnnl, bnns,
    arm_compute_lib, nnapi, tensorrt: its .pat spec), or None."""
    if compiler in _TABLES:
        return _TABLES[compiler]
    if compiler in builtin_backends():
        return builtin(compiler).table(compiler)
    return None
