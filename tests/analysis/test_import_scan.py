"""The import statements read from a module's text without indexing it (analysis/import_scan.py)."""
from pallas_lsp.analysis.import_scan import ImportFact, scan_imports


def facts(text):
    return [(f.is_from, f.module, f.level, f.names) for f in scan_imports(text)]


def test_every_form_of_import_statement_is_read_in_order():
    text = (
        "import os, sys as system\n"
        "from . import sibling\n"
        "from ..pkg.mod import (a,\n    b as bee,  # a comment\n)\n"
        "x = 1; import json; from re import compile\n"
        "def f():\n"
        "    import jax.numpy as jnp\n"
        "    from jax.experimental import pallas as pl\n"
        "from scipy.optimize \\\n    import minimize\n"
    )
    assert facts(text) == [
        (False, "", 0, (("os", None), ("sys", "system"))),
        (True, "", 1, (("sibling", None),)),
        (True, "pkg.mod", 2, (("a", None), ("b", "bee"))),
        (False, "", 0, (("json", None),)),
        (True, "re", 0, (("compile", None),)),
        (False, "", 0, (("jax.numpy", "jnp"),)),
        (True, "jax.experimental", 0, (("pallas", "pl"),)),
        (True, "scipy.optimize", 0, (("minimize", None),)),
    ]


def test_words_that_only_contain_import_start_nothing():
    text = (
        "import importlib\n"
        "importlib.import_module('x')\n"
        "imports = [1]\n"
        "# import commented_out\n"
        "reimport = 2\n"
        "x = 'from a import b'\n"
    )
    assert facts(text) == [(False, "", 0, (("importlib", None),))]


def test_the_continued_line_of_a_from_import_is_not_read_again_as_an_import():
    # (The scan used to read "    import projections" on its own as well: a module named
    # `projections` that nothing imports.)
    text = "from scipy.optimize._trustregion_constr.projections \\\n    import projections, orthogonality\n"
    assert scan_imports(text) == (ImportFact(True, "scipy.optimize._trustregion_constr.projections", 0,
                                             (("projections", None), ("orthogonality", None))),)


def test_launch_words_are_uses_of_a_launch_api_not_attributes_that_share_its_name():
    from pallas_lsp.analysis.program import file_facts

    def words(body):
        return file_facts("from jax.experimental.pallas import mosaic_gpu as plgpu\n" + body).launch_words

    assert words("out = pl.pallas_call(k, out_shape=s)(x)\n") == "launch"
    for launching in ("f = plgpu.kernel(body, out_type=t)\n",
                      "f = functools.partial(plgpu.kernel, out_type=t)\n",
                      "_kernel = plgpu.kernel  # an alias\n",
                      "class T:\n    def test(self):\n        self.kernel(body, out_type=t)\n"):
        assert words(launching) == "kernel", launching
    # A flax parameter called `kernel` (every model file of maxtext): no launch.
    for reading in ("w = self.kernel[...]\n", "v = layer.gate.kernel.value\n",
                    "self.kernel = nnx.Param(init(key, shape))\n"):
        assert words(reading) == "", reading


def test_lazy_import_facts_decode_on_first_read_as_the_scanned_ones():
    from pallas_lsp.analysis.import_scan import LazyImportFacts

    facts = scan_imports("from a.b import c as d, e\nimport f.g\nfrom . import h\n")
    lazy = LazyImportFacts([f.to_json() for f in facts])
    assert lazy == facts and tuple(lazy) == facts and len(lazy) == 3 and lazy[1] == facts[1]
    assert hash(lazy) == hash(facts)
    import pytest

    for bad in ({"x": 1}, [[1, "a"]], ["import a"]):
        with pytest.raises(ValueError):
            LazyImportFacts(bad)
