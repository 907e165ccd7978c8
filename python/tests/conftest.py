import os

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("CARVE_SHARED_DIR", os.path.join(SOURCE, "..", "shared"))


def corpus_path(name):
    return os.path.join(SHARED, "corpus", name)


@pytest.fixture
def corpus():
    """Reads a TVM-printed program from shared/corpus."""

    def read(name):
        path = corpus_path(name)
        if not os.path.exists(path):
            pytest.skip("no shared corpus at %s" % SHARED)
        with open(path) as f:
            return f.read()

    return read
