"""pallas_lsp.lowering: reading the generated lowering tables (no jax)."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest

from pallas_lsp.lowering import (MOSAIC_GPU_LANE, MOSAIC_GPU_WARPGROUP, TPU, TRITON, UNKNOWN,
                                 LoweringTables, fact_value, tables)


def _tables(functions: dict, backends: dict | None = None) -> LoweringTables:
    backends = backends or {"tpu": {"primitives": ["add", "sin"]}}
    return LoweringTables({"backends": backends}, {"functions": functions}, {"jax_version": "9.9"})


GELU = {
    "defaults": {"approximate": True},
    "params": ["x", "approximate"],
    "traced_with": {"arg_ndim": [1, 2]},
    "variants": [
        {"facts": {"approximate": False, "arg_dtype": "float32"}, "primitives": ["erfc", "mul"]},
        {"facts": {"approximate": False, "arg_dtype": "int32"},
         "primitives": ["convert_element_type", "erfc", "mul"]},
        {"facts": {"approximate": True, "arg_dtype": "float32"}, "primitives": ["mul", "tanh"]},
        {"facts": {"approximate": True, "arg_dtype": "int32"},
         "primitives": ["convert_element_type", "mul", "tanh"]},
    ],
}


def test_fact_values_are_normalised_like_the_generator():
    assert [fact_value(v) for v in (True, None, "float32", 3, 2.0, (1, 2))] == [
        True, None, "float32", "int", "float", "tuple"]
    assert fact_value(UNKNOWN) is UNKNOWN
    assert fact_value(object()) == "array"


def test_an_omitted_keyword_stands_for_its_default():
    t = _tables({"jax.nn.gelu": GELU})
    default = t.emitted("jax.nn.gelu")
    assert default.always == {"mul", "tanh"}
    assert default.sometimes == {"mul", "tanh", "convert_element_type"}
    assert default.variants == 2 and default.exact


def test_a_keyword_value_selects_its_variants():
    t = _tables({"jax.nn.gelu": GELU})
    assert t.emitted("jax.nn.gelu", {"approximate": False}).always == {"erfc", "mul"}
    assert t.emitted("jax.nn.gelu", {"approximate": False, "arg_dtype": "int32"}).always == {
        "convert_element_type", "erfc", "mul"}


def test_a_positional_literal_is_mapped_to_its_parameter():
    t = _tables({"jax.nn.gelu": GELU})
    assert t.emitted("jax.nn.gelu", positional=[UNKNOWN, False]).always == {"erfc", "mul"}


def test_an_unknown_value_matches_every_variant():
    t = _tables({"jax.nn.gelu": GELU})
    answer = t.emitted("jax.nn.gelu", {"approximate": UNKNOWN})
    assert answer.always == {"mul"}
    assert {"erfc", "tanh"} <= answer.sometimes
    assert answer.variants == 4


def test_a_value_never_traced_is_answered_but_not_exact():
    t = _tables({"jax.nn.gelu": GELU})
    answer = t.emitted("jax.nn.gelu", {"arg_dtype": "bfloat16"})
    assert answer.always == {"mul", "tanh"} and not answer.exact
    assert not t.emitted("jax.nn.gelu", {"arg_ndim": 3}).exact
    assert not t.emitted("jax.nn.gelu", {"out_sharding": None}).exact
    assert t.emitted("jax.nn.gelu", {"arg_ndim": 2}).exact


def test_a_plain_entry_and_an_unknown_function():
    t = _tables({"jax.numpy.sin": {"primitives": ["sin"], "params": ["x"]}})
    assert t.emitted("jax.numpy.sin").always == {"sin"}
    assert t.emitted("jax.numpy.nope") is None
    assert t.unlowered("tpu", "jax.numpy.nope") is None


def test_unlowered_is_what_is_surely_emitted_and_not_lowered():
    t = _tables({"jax.nn.gelu": GELU}, {"tpu": {"primitives": ["mul", "tanh"]}})
    assert t.unlowered("tpu", "jax.nn.gelu") == frozenset()
    assert t.unlowered("tpu", "jax.nn.gelu", {"approximate": False}) == {"erfc"}
    assert t.unlowered("tpu", "jax.nn.gelu", {"approximate": UNKNOWN}) == frozenset()


# The shipped tables (generated from jax 0.12.0.1): facts the corpus-prims runs showed.

def test_shipped_tables_name_their_jax():
    t = tables()
    assert t.jax_version == "0.12.0.1" and t.jaxlib_version
    assert t.metadata["command"] == "scripts/gen_lowering_tables.py"
    assert {TPU, TRITON, MOSAIC_GPU_WARPGROUP, MOSAIC_GPU_LANE} <= set(t.backend_names())
    assert tables() is t


@pytest.mark.parametrize("backend, primitive, lowered", [
    (TPU, "cos", True), (TPU, "cumsum", False), (TPU, "copy", False), (TPU, "sort", False),
    (TRITON, "cumsum", True), (TRITON, "erf", False), (TRITON, "slice", False),
    (MOSAIC_GPU_WARPGROUP, "dot_general", False), (MOSAIC_GPU_WARPGROUP, "wgmma", True),
    (MOSAIC_GPU_LANE, "tan", False), (MOSAIC_GPU_LANE, "exp", True),
])
def test_shipped_backend_tables(backend, primitive, lowered):
    assert tables().lowers(backend, primitive) is lowered


@pytest.mark.parametrize("function, facts, primitive", [
    ("jax.nn.gelu", {"approximate": False}, "erfc"),
    ("jax.numpy.argsort", {}, "sort"),
    ("jax.numpy.copy", {}, "copy"),
    ("jax.numpy.array", {}, "copy"),
    ("jax.nn.softmax", {}, "stop_gradient"),
    ("jax.Array.at[].set", {"index": "static_ints"}, "scatter"),
    ("jax.Array.__getitem__", {"index": "reverse_slice"}, "rev"),
    ("jax.Array.__getitem__", {"index": "traced_int"}, "dynamic_slice"),
    ("jax.Array.__pow__", {"other": 3}, "integer_pow"),
    ("jax.lax.fori_loop", {"bounds": "traced"}, "while"),
    ("jax.lax.fori_loop", {"bounds": "static"}, "scan"),
    ("jax.numpy.cumsum", {"axis": 1}, "cumsum"),
])
def test_shipped_function_tables(function, facts, primitive):
    assert primitive in tables().emitted(function, facts).always


def test_shipped_keyword_variants_differ():
    t = tables()
    assert "erfc" not in t.emitted("jax.nn.gelu").sometimes
    assert "integer_pow" not in t.emitted("jax.Array.__pow__", {"other": 2.0}).sometimes


def test_shipped_files_are_sorted_and_list_skips_with_reasons():
    folder = resources.files("pallas_lsp.records") / "releases" / "jax-0.12.0.1"
    for name in ("backends.json", "functions.json", "metadata.json", "release.json"):
        data = json.loads((folder / name).read_text("utf-8"))
        assert list(data) == sorted(data), name
    functions = json.loads((folder / "functions.json").read_text("utf-8"))["functions"]
    assert list(functions) == sorted(functions)
    for entry in functions.values():
        lists = [entry["primitives"]] if "primitives" in entry else [
            v["primitives"] for v in entry["variants"]]
        assert all(p == sorted(set(p)) for p in lists)
    skipped = tables().skipped()
    assert skipped and all(isinstance(v, str) and v for v in skipped.values())


def test_the_loader_does_not_import_jax():
    code = ("import sys, pallas_lsp.lowering as l; l.tables().emitted('jax.numpy.sin'); "
            "print('jax' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
