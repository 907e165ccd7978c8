"""carve.compare: a module run as is and partitioned for backends, output by output."""

from ._carve import compare as _compare


class CompareReport:
    """What carve.compare found: the largest errors per output and per composite.

    ok          every error within tolerance
    outputs     [{"type", "max_abs", "max_rel", "within"}] in output order
    composites  [{"name", "calls", "max_abs", "max_rel", "within"}] by name
    partitioned the partitioned module that ran
    text        the report as `carve run --compare` prints it
    """

    def __init__(self, ok, backends, offloaded, outputs, composites, partitioned, text):
        self.ok = ok
        self.backends = backends
        self.offloaded = offloaded
        self.outputs = outputs
        self.composites = composites
        self.partitioned = partitioned
        self.text = text

    def __bool__(self):
        return self.ok

    def __str__(self):
        return self.text

    def __repr__(self):
        return "CompareReport(ok=%r, offloaded=%r, backends=%r)" % (self.ok, self.offloaded, self.backends)


def compare(mod, backend, inputs=None, params=None, rtol=None, atol=None):
    """Runs `mod` on the reference kernels and partitioned for `backend` (a name or a list)
    on its runtime, with `inputs` and `params` ({name: array}, together one per parameter of
    @main; params are bound as constants before partitioning, as partition_for does)."""
    return _compare(mod, backend, inputs, params, rtol, atol)
