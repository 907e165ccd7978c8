"""carve.patterns: pattern tables written in the .pat DSL (docs/patterns.md).

    lib = carve.patterns.load("my_backend.pat")
    mod = carve.transform.MergeComposite(lib.table("mybackend"))(mod)
    lib.register()      # its backends become targets for AnnotateTarget / partition_for
"""

from ._carve import PatternLibrary, builtin_backends  # noqa: F401
from ._carve import load_patterns as load  # noqa: F401
from ._carve import parse_pattern as pattern  # noqa: F401
from ._carve import parse_patterns as parse  # noqa: F401
from ._carve import builtin_spec


def builtin(name):
    """The .pat spec of a built-in backend (dnnl, bnns, ...) as a PatternLibrary."""
    if name not in builtin_backends():
        raise KeyError("no built-in backend %r (they are %s)" % (name, ", ".join(builtin_backends())))
    return builtin_spec(name)
