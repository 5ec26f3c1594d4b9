"""The detection schema's wave-2 additions (records/detection.py): the ``passed`` / ``truthy``
/ ``falsy`` tests, ``present`` meaning surely not None, ``loweredFor``, ``underline`` of a
condition's call, and ``also`` sections. A malformed section names its file and field, and
the record still loads without it; a well-formed one behaves as documented."""
from __future__ import annotations

import copy
import json

import pytest

from pallas_lsp.analysis import Engine
from pallas_lsp.records import load_records_path
from pallas_lsp.records.detection import DetectionError, parse_detection
from pallas_lsp.rules import default_rule_set
from pallas_lsp.rules.data import data_rules, detection_problems

PLGPU = "jax.experimental.pallas.mosaic_gpu"
PL = "jax.experimental.pallas"

BASE = {
    "code": "PAL190", "name": "team-kind",
    "construct": {"call": f"{PL}.run_scoped",
                  "where": [{"argument": {"keyword": "collective_axes"}, "truthy": True}]},
    "modes": ["tpu-interpret"],
}


def _record(detection: dict) -> dict:
    return {"record": {"id": "team0001", "slug": "team-kind", "errorMessage": "it fails",
                       "messagePattern": "it fails", "errorClass": "NotImplementedError", "schemaVersion": 2,
                       "detection": detection}}


def _load(tmp_path, detection: dict):
    path = tmp_path / "team.json"
    path.write_text(json.dumps(_record(detection)))
    records, problems = load_records_path(path)
    return path, records, problems


def _with(**changes) -> dict:
    d = copy.deepcopy(BASE)
    d.update(changes)
    return d


BAD = [
    (_with(loweredFor="cuda"), "record.record.detection.loweredFor", "non-empty list"),
    (_with(loweredFor=["cuda", "metal"]), "record.record.detection.loweredFor[1]", "'metal' is not a platform"),
    (_with(loweringSemantics=["warp"]), "record.record.detection.loweringSemantics",
     "non-empty list of warpgroup, lane"),
    (_with(loweringSemantics=[]), "record.record.detection.loweringSemantics", "non-empty list"),
    (_with(underline={"condition": 3}), "record.record.detection.underline.condition", "index of a construct.where"),
    (_with(underline={"condition": 0}), "record.record.detection.underline.condition",
     "only an `api`, `contains`, `anyLeaf` or"),
    (_with(underline={"condition": True}), "record.record.detection.underline.condition", "index"),
    (_with(underline={"argument": {"keyword": "x"}, "call": 1}), "record.record.detection.underline",
     "must be \"construct\""),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"keyword": "collective_axes"}, "truthy": "yes"}]}),
     "record.record.detection.construct.where[0].truthy", "must be true"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"keyword": "barrier"}, "passed": 1}]}),
     "record.record.detection.construct.where[0].passed", "must be true"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"rest": 1}, "truthy": True}]}),
     "record.record.detection.construct.where[0].argument.rest", "takes a `contains` test"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"rest": 1, "keyword": "x"}, "contains": {"api": f"{PL}.x"}}]}),
     "record.record.detection.construct.where[0].argument", "`rest` stands alone"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"rest": -1}, "contains": {"api": f"{PL}.x"}}]}),
     "record.record.detection.construct.where[0].argument.rest", "integer from 0 to 63"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"position": 1}, "transposed": False}]}),
     "record.record.detection.construct.where[0].transposed", "must be true"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"position": 1}, "nonZero": 1}]}),
     "record.record.detection.construct.where[0].nonZero", "must be true"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"position": 1}, "anyLeaf": {"where": []}}]}),
     "record.record.detection.construct.where[0].anyLeaf", "must be an object with `api`"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"position": 1}, "anyLeaf": {"api": "notqualified"}}]}),
     "record.record.detection.construct.where[0].anyLeaf.api", "not a qualified public name"),
    (_with(construct={"call": f"{PL}.run_scoped",
                      "where": [{"argument": {"position": 1}, "movingIndexMap": "yes"}]}),
     "record.record.detection.construct.where[0].movingIndexMap", "must be true"),
    (_with(quietWhenLaunch={"argument": {"keyword": "in_specs"}, "present": True}),
     "record.record.detection.quietWhenLaunch", "list of at most"),
    (_with(quietWhenLaunch=[{"argument": {"keyword": "in_specs"}, "present": False}]),
     "record.record.detection.quietWhenLaunch[0].present", "must be true"),
    (_with(transformedBy=["differentiate"]), "record.record.detection.transformedBy",
     "only a `launch` construct is transformed"),
    (_with(construct={"launch": f"{PL}.pallas_call"}, transformedBy=["jax.pmap"]),
     "record.record.detection.transformedBy", "transformation APIs (jax.grad"),
    (_with(construct={"launch": f"{PL}.pallas_call"}, transformedBy=[]), "record.record.detection.transformedBy",
     "non-empty list of kinds (differentiate, reverse, batch, shard)"),
    (_with(construct={"launch": f"{PL}.pallas_call"}, underline="transform"), "record.record.detection.underline",
     "needs `transformedBy`"),
    (_with(construct={"launch": f"{PL}.pallas_call"}, transformedBy=["reverse"],
           fixes=[{"title": "t", "removeKeyword": "interpret", "unlessTransformedBy": "reverse"}]),
     "record.record.detection.fixes[0].unlessTransformedBy", "non-empty list of kinds"),
    (_with(construct={"launch": f"{PL}.pallas_call",
                      "where": [{"argument": {"keyword": "grid"}, "dynamicEntry": 1}]}),
     "record.record.detection.construct.where[0].dynamicEntry", "must be true"),
    (_with(fixes=[{"title": "t", "replaceCallee": "{jax.experimental.pallas.tpu}.VMEM"}]),
     "record.record.detection.fixes[0].replaceCallee", "needs `underline.condition`"),
    (_with(fixes=[{"title": "t", "replaceCallee": "{jax.experimental.pallas.tpu}.VMEM("}]),
     "record.record.detection.fixes[0].replaceCallee", "is not a Python expression"),
    (_with(fixes=[{"title": "t", "setLaunchKeyword": {"name": "interpret"}}]),
     "record.record.detection.fixes[0].setLaunchKeyword", "`name` and `value`"),
    (_with(fixes=[{"title": "t", "setLaunchKeyword": {"name": "interpret", "value": "True"},
                   "when": [{"argument": {"keyword": "core_index"}, "equals": 0, "present": True}]}]),
     "record.record.detection.fixes[0].when[0]", "exactly one test"),
    (_with(construct={"launch": f"{PL}.pallas_call", "where": [{"argument": {"keyword": "grid"}, "wholeArray": True}]}),
     "record.record.detection.construct.where[0].argument", "about `in_specs` or `out_specs`"),
    (_with(construct={"launch": f"{PL}.pallas_call",
                      "where": [{"argument": {"keyword": "in_specs"}, "wholeArray": 1}]}),
     "record.record.detection.construct.where[0].wholeArray", "must be true or false"),
    (_with(fixes=[{"title": "t", "removeKeyword": "leader_tracked", "onUnderlined": True}]),
     "record.record.detection.fixes[0].onUnderlined", "needs `underline.condition`"),
    (_with(fixes=[{"title": "t", "replaceCallee": "x.y", "onUnderlined": True}]),
     "record.record.detection.fixes[0].onUnderlined", "with setKeyword or removeKeyword"),
    (_with(fixes=[{"title": "t", "setCompilerParam": {"name": "lowering_semantics", "value": "x"}}]),
     "record.record.detection.fixes[0].setCompilerParam", "`name`, `value` and `params`"),
    (_with(fixes=[{"title": "t", "replaceCall": "{arg:0}[...] = ("}]),
     "record.record.detection.fixes[0].replaceCall", "is not a Python expression"),
    (_with(fixes=[{"title": "t", "removeKeyword": "decrement", "unlessKernelCalls": "pl.semaphore_wait"}]),
     "record.record.detection.fixes[0].unlessKernelCalls", "list of public API names"),
    (_with(fixes=[{"title": "t", "replaceCall": "{call:barrier}"}]),
     "record.record.detection.fixes[0].replaceCall", "the only placeholder with `=`"),
    (_with(fixes=[{"title": "t", "replaceCall": "{arg:0=x}"}]),
     "record.record.detection.fixes[0].replaceCall", "the only placeholder with `=`"),
    (_with(fixes=[{"title": "t", "addScratch": {"value": "x.Barrier()", "name": "bar"}}]),
     "record.record.detection.fixes[0].addScratch", "`name`, `value` and `replaceCall`"),
    (_with(fixes=[{"title": "t", "addScratch": {"value": "x.Barrier()", "name": "a b", "replaceCall": "f()"}}]),
     "record.record.detection.fixes[0].addScratch.name", "a parameter name"),
    (_with(fixes=[{"title": "t", "replaceCall": "\n".join(["pass"] * 9)}]),
     "record.record.detection.fixes[0].replaceCall", "at most 8 lines"),
    (_with(fixes=[{"title": "t", "replaceCallee": "x.y\n.z", "onUnderlined": False}]),
     "record.record.detection.fixes[0].replaceCallee", "one line"),
    (_with(also={"code": "PAL191"}), "record.record.detection.also", "list of 1 to 8"),
    (_with(also=[]), "record.record.detection.also", "list of 1 to 8"),
    (_with(also=["PAL191"]), "record.record.detection.also[0]", "expected an object"),
    (_with(also=[{"name": "team-kind-two"}]), "record.record.detection.also[0].code", "required"),
    (_with(also=[{"code": "PAL191"}]), "record.record.detection.also[0].name", "required"),
    (_with(also=[{"code": "PAL190", "name": "team-kind-two"}]), "record.record.detection.also[0]", "used twice"),
    (_with(also=[{"code": "PAL191", "name": "team-kind-two", "also": []}]),
     "record.record.detection.also[0].also", "no `also` of its own"),
    (_with(also=[{"code": "PAL191", "name": "team-kind-two", "modes": ["nowhere"]}]),
     "record.record.detection.also[0].modes[0]", "not a mode"),
    (_with(also=[{"code": "PAL191", "name": "team-kind-two", "loweredFor": ["vulkan"]}]),
     "record.record.detection.also[0].loweredFor[0]", "not a platform"),
]


@pytest.mark.parametrize("detection,where,why", BAD, ids=[b[1] + ":" + b[2][:12] for b in BAD])
def test_a_malformed_section_names_file_and_field_and_the_record_still_loads(tmp_path, detection, where, why):
    path, records, problems = _load(tmp_path, detection)
    (problem,) = problems
    assert problem.path == str(path) and problem.where == where, str(problem)
    assert why in problem.message and "the record loads without its detection section" in problem.message
    (rec,) = records
    assert rec.slug == "team-kind" and rec.detection is None
    assert data_rules(records) == []


def test_a_good_section_with_the_additions_loads(tmp_path):
    section = _with(
        construct={"call": f"{PLGPU}.copy_gmem_to_smem",
                   "where": [{"argument": {"position": 0}, "api": [f"{PLGPU}.im2col_ref"]},
                             {"argument": {"position": 2, "keyword": "barrier"}, "passed": True}]},
        modes=["mosaic-gpu"], loweredFor=["cuda"], underline={"condition": 0},
        also=[{"code": "PAL191", "name": "team-kind-launch",
               "construct": {"launch": f"{PLGPU}.kernel",
                             "where": [{"argument": {"keyword": "thread_name"}, "truthy": True}]},
               "underline": {"argument": {"keyword": "thread_name"}}}])
    path, records, problems = _load(tmp_path, section)
    assert problems == []
    (rec,) = records
    d = rec.detection
    assert d.lowered_for == ("cuda",) and d.underline_condition == 0 and d.underline is None
    (variant,) = d.also
    # Inherited: modes and loweredFor; its own construct brings its own underline (none inherited).
    assert variant.modes == ("mosaic-gpu",) and variant.lowered_for == ("cuda",)
    assert variant.construct == "launch" and variant.underline.keyword == "thread_name"
    rules = data_rules(records)
    assert [(r.code, r.record) for r in rules] == [("PAL190", "team-kind"), ("PAL191", "team-kind")]


def test_an_also_section_whose_code_is_taken_loses_only_itself(tmp_path):
    section = _with(also=[{"code": "PAL001", "name": "team-kind-two",
                           "construct": {"launch": f"{PLGPU}.kernel"}}])
    _, records, problems = _load(tmp_path, section)
    assert problems == []
    found = detection_problems(records, {"PAL001", "get-global-interpret"})
    assert len(found) == 1 and "`PAL001` is already used" in found[0]
    codes = [r.code for r in default_rule_set(records)]
    assert "PAL190" in codes and codes.count("PAL001") == 1


def test_a_variant_without_its_own_construct_inherits_underline_and_fixes():
    d = parse_detection(_with(
        underline={"argument": {"keyword": "collective_axes"}},
        fixes=[{"title": "Drop it", "removeKeyword": "collective_axes"}],
        also=[{"code": "PAL191", "name": "team-kind-interpret", "modes": ["interpret"]}]))
    (v,) = d.also
    assert v.modes == ("interpret",) and v.underline.keyword == "collective_axes"
    assert [f.title for f in v.fixes] == ["Drop it"]


def test_the_api_placeholder_is_known():
    assert parse_detection(_with(headline="`{api}` fails")).headline == "`{api}` fails"
    with pytest.raises(DetectionError) as exc:
        parse_detection(_with(headline="`{callee}` fails"))
    assert exc.value.where == "detection.headline" and "{api}" in exc.value.message


def test_detection_error_carries_the_field():
    with pytest.raises(DetectionError) as exc:
        parse_detection(_with(loweredFor=[]))
    assert exc.value.where == "detection.loweredFor"


# -- the tests, on code ------------------------------------------------------------------------

PROGRAM = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu

AXES = {axes}


def helper(body, axes):
    pl.run_scoped(body, pltpu.VMEM((8, 128), jnp.float32), collective_axes=axes)


def kernel(x_ref, o_ref):
    def body(tmp):
        o_ref[...] = x_ref[...]
    helper(body, {passed})


def run(x, axes_from_caller):
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          interpret=pltpu.InterpretParams())(x)
'''


def _flags(tmp_path, test: str, axes: str, passed: str) -> bool:
    section = _with(construct={"call": f"{PL}.run_scoped",
                               "where": [{"argument": {"keyword": "collective_axes"}, test: True}]})
    path, records, problems = _load(tmp_path, section)
    assert problems == []
    engine = Engine(default_rule_set(records))
    result = engine.analyse(PROGRAM.format(axes=axes, passed=passed), "k.py")
    return any(f.code == "PAL190" for f in result.findings)


@pytest.mark.parametrize("axes,passed,truthy,falsy,present", [
    ('"core"', "AXES", True, False, True),     # a constant, passed down through a helper's parameter
    ('("core",)', "AXES", True, False, True),  # a literal tuple with one axis
    ("()", "AXES", False, True, True),         # an empty tuple: falsy, but not None
    ("None", "AXES", False, True, False),
    ("None", "x_ref.shape", False, False, False),  # a value the analysis cannot tell: no test holds
])
def test_truthy_falsy_and_present_hold_only_when_the_code_says_so(tmp_path, axes, passed, truthy, falsy, present):
    assert _flags(tmp_path, "truthy", axes, passed) is truthy
    assert _flags(tmp_path, "falsy", axes, passed) is falsy
    assert _flags(tmp_path, "present", axes, passed) is present


@pytest.mark.parametrize("axes,passed,non_empty", [
    ('"core"', "AXES", True),      # a string: JAX wraps it as ("core",)
    ('""', "AXES", True),          # an empty string still makes a one-tuple
    ("None", "AXES", True),        # so does None: (None,), which the interpreters reject
    ('("core",)', "AXES", True),
    ("()", "AXES", False),         # the empty tuple is the default: no collective axes
    ('["core"]', "AXES", False),   # a list fails earlier (an unhashable primitive parameter)
    ("None", "x_ref.shape", False),  # a value the analysis cannot tell
])
def test_non_empty_axes_is_what_jax_wraps_into_a_non_empty_tuple(tmp_path, axes, passed, non_empty):
    assert _flags(tmp_path, "nonEmptyAxes", axes, passed) is non_empty


def test_non_empty_axes_parses_only_as_true():
    cond = parse_detection(_with(construct={"call": f"{PL}.run_scoped", "where": [
        {"argument": {"keyword": "collective_axes"}, "nonEmptyAxes": True}]})).where[0]
    assert cond.test == "nonEmptyAxes"
    with pytest.raises(DetectionError) as exc:
        parse_detection(_with(construct={"call": f"{PL}.run_scoped", "where": [
            {"argument": {"keyword": "collective_axes"}, "nonEmptyAxes": 1}]}))
    assert exc.value.where == "detection.construct.where[0].nonEmptyAxes"


GRID_SPEC_PROGRAM = '''
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu


def kernel(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def run(x):
    layout = {grid_spec}
    return pl.pallas_call(kernel, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid_spec=layout,
                          interpret=pltpu.InterpretParams())(x)
'''


@pytest.mark.parametrize("grid_spec,flagged", [
    ("pl.GridSpec(grid=(1,), in_specs=[pl.BlockSpec(memory_space=pltpu.SMEM)])", True),
    ("pl.GridSpec((1,), [pl.BlockSpec(memory_space=pltpu.SMEM)])", True),  # positionally
    ("pltpu.PrefetchScalarGridSpec(0, (1,), [pl.BlockSpec(memory_space=pltpu.SMEM)])", True),
    ("pltpu.PrefetchScalarGridSpec(0, (1,), [pl.BlockSpec()])", False),
    ("pl.GridSpec(grid=(1,), out_specs=pl.BlockSpec(memory_space=pltpu.SMEM))", False),  # not in_specs
])
def test_a_launch_keyword_the_launch_leaves_to_its_grid_spec_is_read_there(tmp_path, grid_spec, flagged):
    section = _with(construct={"launch": f"{PL}.pallas_call", "where": [
        {"argument": {"keyword": "in_specs"}, "anyLeaf": {"api": [f"{PL}.BlockSpec"], "where": [
            {"argument": {"keyword": "memory_space"}, "api": [f"{PL}.tpu.SMEM"]}]}}]})
    path, records, problems = _load(tmp_path, section)
    assert problems == []
    result = Engine(default_rule_set(records)).analyse(GRID_SPEC_PROGRAM.format(grid_spec=grid_spec), "k.py")
    assert any(f.code == "PAL190" for f in result.findings) is flagged
