#!/usr/bin/env python3
"""Generate the lowering tables shipped in server/pallas_lsp/records/releases/jax-<version>/ from a jax.

One command regenerates everything (it re-runs itself under .oracle-env/bin/python when the
current interpreter has no jax):

    scripts/gen_lowering_tables.py [--out DIR]

It writes three files, each with sorted keys and one entry per line, so that regenerating under
the same jax gives byte-identical files:

* backends.json  -- per Pallas backend (Mosaic TPU per core type, Triton, Mosaic GPU per
  (lowering, primitive) semantics) the names of the primitives its lowering-rule registry holds.
* functions.json -- the public functions kernel code calls (jax.numpy, jax.lax, jax.nn,
  jax.scipy.special, jax.numpy.fft, jax.numpy.linalg, jax.Array methods, properties, operators,
  indexing and .at[] updates) mapped to the primitives jax.make_jaxpr records when tracing them on
  small float32/int32 arrays, recursively through sub-jaxprs; variants keyed by the argument
  facts they were traced with, where the primitives depend on them.
* metadata.json  -- jax/jaxlib versions, the generation date, the command, how each table was
  obtained, and every callable that was skipped with the reason.
* release.json   -- what the release is, beside its tables: the backend a plain GPU
  ``pl.pallas_call`` (no compiler params) lowers through, Mosaic GPU's default lowering
  semantics, and the public names of each Pallas module (which APIs exist in the release).

Older releases: install them beside (``pip install "jax[cpu]==X" absl-py``, Python 3.11 for
0.10 and before, 3.12 for 0.11 on) and run this script with that interpreter and
``--out server/pallas_lsp/records/releases/jax-X``.

The date in metadata.json is kept from the existing file when no table changed, so that a
regeneration that finds nothing new rewrites nothing.
"""
from __future__ import annotations

import argparse
import datetime
import importlib
import inspect
import json
import os
import pkgutil
import re
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "server" / "pallas_lsp" / "records" / "releases" / "jax-0.12.0.1"  # the pinned release
ORACLE_PYTHON = ROOT / ".oracle-env" / "bin" / "python"
COMMAND = "scripts/gen_lowering_tables.py"
SCHEMA_VERSION = 1


def _reexec_under_oracle_env() -> None:
    """Run this script again under the oracle env when this interpreter has no jax."""
    try:
        import jax  # noqa: F401
    except ImportError:
        if ORACLE_PYTHON.exists() and Path(sys.executable).resolve() != ORACLE_PYTHON.resolve():
            os.execv(str(ORACLE_PYTHON), [str(ORACLE_PYTHON), __file__, *sys.argv[1:]])
        raise SystemExit(f"no jax here and no {ORACLE_PYTHON}: run scripts/oracle-env first")


# --------------------------------------------------------------------------------------------
# Backend tables
# --------------------------------------------------------------------------------------------

def _import_all_pallas_modules() -> dict[str, str]:
    """Import every module under jax._src.pallas: lowering rules are registered by several of
    them (primitives.py, sc_lowering.py, pipeline.py, einshape.py, ...), not only lowering.py."""
    import jax._src.pallas as pallas_pkg

    failures = {}
    for module in pkgutil.walk_packages(pallas_pkg.__path__, pallas_pkg.__name__ + "."):
        try:
            importlib.import_module(module.name)
        except Exception as exc:  # noqa: BLE001 -- a module that needs an absent extra: recorded, not fatal
            failures[module.name] = _reason(exc)
    for public in ("jax.experimental.pallas", "jax.experimental.pallas.tpu",
                   "jax.experimental.pallas.mosaic_gpu", "jax.experimental.pallas.triton"):
        try:
            importlib.import_module(public)
        except Exception as exc:  # noqa: BLE001 -- recorded, as above
            failures[public] = _reason(exc)
    return failures


def backend_tables() -> tuple[dict, dict]:
    """(backends, identity registries by backend) from the registries the lowerings consult."""
    import_failures = _import_all_pallas_modules()
    from jax._src.pallas.mosaic import lowering as tpu_lowering
    from jax._src.pallas.mosaic_gpu import lowering as gpu_lowering
    from jax._src.pallas.triton import lowering as triton_lowering

    registries = {}
    descriptions = {}
    # Keyed by core type (CoreType, KernelType before 0.9): TC, SC_SCALAR_SUBCORE, ...
    tpu_names = {"TC": "tpu", "SC_SCALAR_SUBCORE": "tpu_sc_scalar_subcore",
                 "SC_VECTOR_SUBCORE": "tpu_sc_vector_subcore"}
    for core_type, rules in tpu_lowering.lowering_rules.items():
        name = tpu_names[core_type.name]
        registries[name] = rules
        shown = f"{core_type}"  # what the error's f-string prints under this Python
        descriptions[name] = {
            "how": ("keys of jax._src.pallas.mosaic.lowering.lowering_rules"
                    f"[{type(core_type).__name__}.{core_type.name}], the registry jaxpr_subcomp "
                    "consults before raising 'Unimplemented primitive in Pallas TPU lowering for "
                    f"{shown}'; no primitive is special-cased in that loop"),
            "error": f"Unimplemented primitive in Pallas TPU lowering for {shown}: {{primitive}}",
        }
    registries["triton"] = triton_lowering.triton_lowering_rules
    descriptions["triton"] = {
        "how": ("keys of jax._src.pallas.triton.lowering.triton_lowering_rules, the registry "
                "lower_jaxpr_to_triton_ir consults before raising 'Unimplemented primitive in "
                "Pallas Triton lowering'; no primitive is special-cased in that loop"),
        "error": "Unimplemented primitive in Pallas Triton lowering: {primitive}",
    }
    # Keyed by (lowering semantics, user thread semantics); older releases have fewer pairs.
    gpu_names = {("Warpgroup", "Warpgroup"): "mosaic_gpu_warpgroup",
                 ("Lane", "Warpgroup"): "mosaic_gpu_lane",
                 ("Warpgroup", "Warp"): "mosaic_gpu_warpgroup_warp_threads",
                 ("Lane", "Warp"): "mosaic_gpu_lane_warp_threads"}
    for semantics, rules in gpu_lowering.mosaic_lowering_rules.items():
        lowering_semantics, primitive_semantics = semantics
        name = gpu_names[(lowering_semantics.name, primitive_semantics.name)]
        registries[name] = rules
        descriptions[name] = {
            "how": ("keys of jax._src.pallas.mosaic_gpu.lowering.mosaic_lowering_rules"
                    f"[({lowering_semantics}, {primitive_semantics})], the registry "
                    "lower_jaxpr_to_mosaic_gpu consults before raising 'Unimplemented "
                    "primitive in Pallas Mosaic GPU lowering'; no primitive is special-cased "
                    "in that loop"),
            "error": ("Unimplemented primitive in Pallas Mosaic GPU lowering: {primitive} for "
                      f"lowering semantics {lowering_semantics} and user thread semantics "
                      f"{primitive_semantics}"),
            "lowering_semantics": lowering_semantics.name,
            "user_thread_semantics": primitive_semantics.name,
        }
    backends = {}
    for name, rules in registries.items():
        backends[name] = dict(descriptions[name],
                              primitives=sorted({prim.name for prim in rules}))
    return {"backends": backends, "import_failures": import_failures}, registries


# --------------------------------------------------------------------------------------------
# Release facts
# --------------------------------------------------------------------------------------------

PUBLIC_MODULES = ("jax.experimental.pallas", "jax.experimental.pallas.tpu",
                  "jax.experimental.pallas.mosaic_gpu", "jax.experimental.pallas.triton")


def release_facts() -> dict:
    """Facts of the installed release that decide contexts and fixes, read from jax itself."""
    from jax._src import config

    facts: dict = {}
    # A GPU pl.pallas_call without compiler params: jax_pallas_use_mosaic_gpu (where the
    # release has it) chooses Mosaic GPU over Triton; without the flag it lowers through Triton.
    # 0.10 defines the flag in jax._src.config; 0.8 and 0.9 in jax._src.pallas.pallas_call
    # (imported by backend_tables), which only jax's registry of flags lists.
    flag = getattr(config, "jax_pallas_use_mosaic_gpu", None)
    where = "jax._src.config.jax_pallas_use_mosaic_gpu"
    if flag is None:
        flag = getattr(config.config, "_value_holders", {}).get("jax_pallas_use_mosaic_gpu")
        where = "the jax_pallas_use_mosaic_gpu flag (jax._src.pallas.pallas_call)"
    if flag is None:
        facts["gpu_pallas_call_default"] = {
            "backend": "triton", "how": "jax._src.config has no jax_pallas_use_mosaic_gpu"}
    else:
        facts["gpu_pallas_call_default"] = {
            "backend": "mosaic_gpu" if flag.value else "triton",
            "how": f"{where} defaults to {bool(flag.value)} (JAX_PALLAS_USE_MOSAIC_GPU unset)"}
    try:
        from jax.experimental.pallas import mosaic_gpu as plgpu
        semantics = plgpu.CompilerParams().lowering_semantics
        facts["mosaic_gpu_default_lowering_semantics"] = getattr(semantics, "name", str(semantics))
    except Exception as exc:  # noqa: BLE001 -- an absent or changed API is a fact too
        facts["mosaic_gpu_default_lowering_semantics"] = None
        facts["mosaic_gpu_default_lowering_semantics_error"] = _reason(exc)
    public = {}
    for name in PUBLIC_MODULES:
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 -- an absent public module is a fact too
            public[name] = {"error": _reason(exc)}
            continue
        names = {n for n in dir(module) if not n.startswith("_")}
        # Deprecated names stay reachable through the module's __getattr__ (jax's
        # _deprecations: name -> (message, object or None once removed)) but not in dir().
        deprecated = getattr(module, "_deprecations", {})
        if isinstance(deprecated, dict):
            names |= {n for n, entry in deprecated.items()
                      if isinstance(entry, tuple) and len(entry) > 1 and entry[1] is not None}
        public[name] = sorted(names)
    facts["public_names"] = public
    return facts


# --------------------------------------------------------------------------------------------
# Tracing
# --------------------------------------------------------------------------------------------

class _TraceTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _TraceTimeout("tracing took more than 20 s")


def _reason(exc: BaseException) -> str:
    """A short deterministic reason: the exception type and its first line, addresses masked."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = re.sub(r"0x[0-9a-fA-F]+", "0x...", text)
    text = re.sub(r"/\S*/site-packages/", "", text)
    if len(text) > 160:
        text = text[:157] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _subjaxprs(value):
    from jax._src import core

    if isinstance(value, core.Jaxpr):
        yield value
    elif isinstance(getattr(value, "jaxpr", None), core.Jaxpr):  # a closed jaxpr, older jax
        yield value.jaxpr
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _subjaxprs(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _subjaxprs(item)


def collect_primitives(jaxpr, found: dict) -> None:
    """Every primitive of jaxpr and of the jaxprs in its equations' parameters (jit bodies,
    custom_jvp/custom_vjp calls, cond branches, while and scan bodies, ...)."""
    for eqn in jaxpr.eqns:
        found.setdefault(eqn.primitive.name, set()).add(eqn.primitive)
        for param in eqn.params.values():
            for sub in _subjaxprs(param):
                collect_primitives(sub, found)


def trace(fn, args, primitive_objects: dict) -> frozenset[str]:
    import jax

    signal.alarm(20)
    try:
        traced = jax.make_jaxpr(fn)(*args)
    finally:
        signal.alarm(0)
    found: dict = {}
    collect_primitives(getattr(traced, "jaxpr", traced), found)
    for name, prims in found.items():
        primitive_objects.setdefault(name, set()).update(prims)
    return frozenset(found)


def fact_value(value):
    """The fact a traced argument value stands for; the loader normalises queries the same way:
    bools, None and strings as themselves, Python ints and floats as "int"/"float", tuples as
    "tuple", arrays as "array"."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (tuple, list)):
        return "tuple"
    return "array"


# --------------------------------------------------------------------------------------------
# What is traced
# --------------------------------------------------------------------------------------------

GENERIC_DTYPES = ("float32", "int32")
GENERIC_SHAPES = {2: (8, 8), 1: (8,)}  # square: matmul- and linalg-like functions trace too

MODULES = ("jax.numpy", "jax.lax", "jax.nn", "jax.scipy.special", "jax.numpy.fft",
           "jax.numpy.linalg")

# Names whose call does I/O, configuration or printing rather than computing on arrays.
NOT_ARRAY_FUNCTIONS = {
    "jax.numpy.load": "reads a file", "jax.numpy.save": "writes a file",
    "jax.numpy.savez": "writes a file", "jax.numpy.fromfile": "reads a file",
    "jax.numpy.set_printoptions": "configuration", "jax.numpy.printoptions": "configuration",
    "jax.numpy.get_printoptions": "configuration", "jax.numpy.show_config": "prints",
}

# Keyword parameters whose value may change the primitives: booleans are flipped; these,
# defaulting to None, are also traced with an int.
INT_VARIED_KEYWORDS = ("axis",)


class Table:
    """Traces, grouped by public name, then simplified into the functions table."""

    def __init__(self):
        self.traces: dict[str, list[tuple[dict, frozenset[str]]]] = {}
        self.params: dict[str, list[str]] = {}
        self.defaults: dict[str, dict] = {}
        self.notes: dict[str, str] = {}
        self.failures: dict[str, str] = {}  # the last failure of each name
        self.excluded: dict[str, str] = {}
        self.primitive_objects: dict[str, set] = {}

    def add(self, name, facts, fn, args) -> bool:
        try:
            prims = trace(fn, args, self.primitive_objects)
        except Exception as exc:  # noqa: BLE001 -- a program JAX refuses to trace is recorded, not fatal
            self.failures[name] = _reason(exc)
            return False
        self.traces.setdefault(name, []).append((dict(facts), prims))
        return True

    def skipped(self) -> dict[str, str]:
        """Names never traced, with the last failure (a name traced under some arguments and
        not others keeps what was traced; its traced_with and facts say under which)."""
        out = dict(self.excluded)
        out.update({k: v for k, v in self.failures.items() if k not in self.traces})
        return dict(sorted(out.items()))

    def entries(self) -> dict:
        out = {}
        for name, traces in self.traces.items():
            entry = simplify(traces)
            if name in self.params:
                entry["params"] = self.params[name]
            if self.defaults.get(name):
                used = {k for v in entry.get("variants", []) for k in v["facts"]}
                defaults = {k: v for k, v in self.defaults[name].items() if k in used}
                if defaults:
                    entry["defaults"] = defaults
            if name in self.notes:
                entry["note"] = self.notes[name]
            out[name] = entry
        return out


def simplify(traces: list[tuple[dict, frozenset[str]]]) -> dict:
    """Variants keyed only by the facts their primitives depend on.

    Facts with one value over all traces go to "traced_with"; a fact whose values never change
    the primitives (all else equal) is dropped from the variants and its traced values listed in
    "traced_with"; what is left keys the variants."""
    variants = {json.dumps(f, sort_keys=True) + repr(sorted(p)): (f, p) for f, p in traces}
    variants = list(variants.values())
    keys = sorted({k for f, _ in variants for k in f})
    traced_with: dict = {}
    for key in keys:
        values = {json.dumps(f.get(key, "<absent>")) for f, _ in variants}
        if len(values) == 1 and all(key in f for f, _ in variants):
            traced_with[key] = variants[0][0][key]
            variants = [({k: v for k, v in f.items() if k != key}, p) for f, p in variants]
    for key in keys:
        # A fact some variants lack already matches anything there: merging over it would pair
        # variants traced under different arguments.
        if key in traced_with or not all(key in f for f, _ in variants):
            continue
        groups: dict[str, set] = {}
        for f, p in variants:
            rest = json.dumps({k: v for k, v in f.items() if k != key}, sort_keys=True)
            groups.setdefault(rest, set()).add(p)
        if all(len(prims) == 1 for prims in groups.values()):
            traced_with[key] = sorted({f[key] for f, _ in variants if key in f},
                                      key=lambda v: json.dumps(v))
            merged = {}
            for f, p in variants:
                rest = {k: v for k, v in f.items() if k != key}
                merged[json.dumps(rest, sort_keys=True)] = (rest, p)
            variants = list(merged.values())
    entry: dict = {}
    if traced_with:
        entry["traced_with"] = traced_with
    if len(variants) == 1 and not variants[0][0]:
        entry["primitives"] = sorted(variants[0][1])
    else:
        entry["variants"] = sorted(
            ({"facts": f, "primitives": sorted(p)} for f, p in variants),
            key=lambda v: json.dumps(v["facts"], sort_keys=True))
    return entry


def _arrays(dtype, ndim, count):
    import jax.numpy as jnp

    shape = GENERIC_SHAPES[ndim]
    base = jnp.arange(1, 1 + int(jnp.prod(jnp.array(shape))), dtype=dtype).reshape(shape)
    return [base + k for k in range(count)]


def _positional_names(fn) -> tuple[list[str] | None, dict]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None, {}
    names = []
    defaults = {}
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        elif p.kind == p.VAR_POSITIONAL:
            names.append("*" + p.name)
        if p.default is not p.empty and p.kind != p.VAR_KEYWORD:
            defaults[p.name] = p.default
    return names, defaults


def _varied_keywords(defaults: dict) -> dict[str, list]:
    """keyword -> the non-default values to trace it with."""
    varied = {}
    for name, default in defaults.items():
        if isinstance(default, bool):
            varied[name] = [not default]
        elif default is None and name in INT_VARIED_KEYWORDS:
            varied[name] = [-1]
    return varied


def trace_generic(table: Table, name: str, fn, signature_of=None, bound=False) -> None:
    """Trace fn on 1 to 3 arrays of each generic dtype and rank, then with each varied keyword.
    signature_of: the function whose signature fn has (fn may be a wrapper); bound: a method,
    whose first parameter (self) is the first array and not a parameter of the call."""
    positional, defaults = _positional_names(signature_of or fn)
    varied = _varied_keywords(defaults)
    if positional is not None:
        table.params[name] = positional[1:] if bound else positional
    table.defaults[name] = {k: fact_value(defaults[k]) for k in varied}
    for dtype in GENERIC_DTYPES:
        for ndim in GENERIC_SHAPES:
            for count in (1, 2, 3):
                args = _arrays(dtype, ndim, count)
                facts = {"arg_dtype": dtype, "arg_ndim": ndim}
                if positional is not None:
                    names = positional[:count] if len(positional) >= count and not any(
                        p.startswith("*") for p in positional[:count]) else None
                    if names:
                        facts.update({p: "array" for p in names})
                here = {k: v for k, v in varied.items() if k not in facts}
                base_facts = dict(facts, **{k: fact_value(defaults[k]) for k in here})
                if not table.add(name, base_facts, fn, args):
                    continue
                for keyword, values in here.items():
                    for value in values:
                        kw_facts = dict(base_facts, **{keyword: fact_value(value)})
                        table.add(name, kw_facts, lambda *a, _k=keyword, _v=value: fn(*a, **{_k: _v}),
                                  args)
                break


def public_callables():
    """(public name, callable) of the modules traced generically, aliases under every name."""
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for attr in sorted(dir(module)):
            if attr.startswith("_"):
                continue
            obj = getattr(module, attr)
            if inspect.ismodule(obj) or not callable(obj):
                continue
            yield f"{module_name}.{attr}", obj


def trace_special(table: Table) -> None:
    """Functions whose arguments the generic pass cannot make (shapes, dtypes, callables, static
    ints, index expressions) and the array methods and operators. Each call is traced; the facts
    say how it was called."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    f2, g2 = _arrays("float32", 2, 2)
    i2, j2 = _arrays("int32", 2, 2)
    bf2 = f2.astype(jnp.bfloat16)
    i8 = i2.astype(jnp.int8)
    mask = f2 > 3.0
    idx = jnp.zeros((8, 8), jnp.int32)
    idx1 = jnp.zeros((8,), jnp.int32)
    scalar_i = jnp.int32(2)

    def add(name, facts, fn, *args, note=None):
        table.add(name, facts, fn, args)
        if note:
            table.notes[name] = note

    f32_facts, i32_facts = {"arg_dtype": "float32"}, {"arg_dtype": "int32"}
    traced_start = {"start": "array"}
    static_start = {"start": "int"}

    # Creation and shapes.
    for dt in ("int32", "float32"):
        add("jax.lax.broadcasted_iota", {"dtype": dt}, lambda: lax.broadcasted_iota(dt, (8, 8), 1))
        add("jax.lax.iota", {"dtype": dt}, lambda: lax.iota(dt, 8))
        add("jax.numpy.arange", {"dtype": dt}, lambda: jnp.arange(8, dtype=dt))
        for fname in ("zeros", "ones", "empty"):
            add(f"jax.numpy.{fname}", {"dtype": dt}, lambda fname=fname: getattr(jnp, fname)((8, 8), dt))
        add("jax.numpy.full", {"dtype": dt}, lambda: jnp.full((8, 8), 3, dt))
        add("jax.lax.full", {"dtype": dt}, lambda: lax.full((8, 8), 3, dt))
        add("jax.numpy.eye", {"dtype": dt}, lambda: jnp.eye(8, dtype=dt))
        add("jax.numpy.identity", {"dtype": dt}, lambda: jnp.identity(8, dtype=dt))
        add("jax.numpy.tri", {"dtype": dt}, lambda: jnp.tri(8, dtype=dt))
    add("jax.numpy.linspace", {}, lambda: jnp.linspace(0.0, 1.0, 8))
    add("jax.numpy.full", {"fill_value": "array"}, lambda x: jnp.full((8, 8), x[0, 0]), f2)
    add("jax.lax.full_like", {}, lambda x: lax.full_like(x, 2.0), f2)
    # jnp.full_like's generic trace fills with a whole array like `a` (a copy: device_put in jax
    # 0.8-0.9, nothing later); kernels fill with a scalar, which broadcasts.
    table.traces.pop("jax.numpy.full_like", None)
    add("jax.numpy.full_like", {"fill_value": "float"}, lambda x: jnp.full_like(x, 2.0), f2)
    add("jax.numpy.full_like", {"fill_value": "int"}, lambda x: jnp.full_like(x, 2), f2)
    add("jax.numpy.full_like", {"fill_value": "array"}, lambda x, v: jnp.full_like(x, v), f2, jnp.float32(2))
    add("jax.lax.reshape", {}, lambda x: lax.reshape(x, (64,)), f2)
    add("jax.numpy.reshape", {}, lambda x: jnp.reshape(x, (4, 16)), f2)
    add("jax.numpy.broadcast_to", {}, lambda x: jnp.broadcast_to(x, (2, 8, 8)), f2)
    add("jax.lax.broadcast_in_dim", {}, lambda x: lax.broadcast_in_dim(x, (2, 8, 8), (1, 2)), f2)
    add("jax.lax.broadcast", {}, lambda x: lax.broadcast(x, (2,)), f2)
    add("jax.lax.expand_dims", {}, lambda x: lax.expand_dims(x, (0,)), f2)
    add("jax.numpy.expand_dims", {}, lambda x: jnp.expand_dims(x, 0), f2)
    add("jax.lax.squeeze", {}, lambda x: lax.squeeze(x[None], (0,)), f2)
    add("jax.lax.transpose", {}, lambda x: lax.transpose(x, (1, 0)), f2)
    add("jax.numpy.transpose", {"axes": "tuple"}, lambda x: jnp.transpose(x, (1, 0)), f2)
    add("jax.numpy.swapaxes", {}, lambda x: jnp.swapaxes(x, 0, 1), f2)
    add("jax.numpy.moveaxis", {}, lambda x: jnp.moveaxis(x, 0, 1), f2)
    add("jax.lax.pad", {}, lambda x: lax.pad(x, 0.0, [(1, 1, 0), (0, 2, 0)]), f2)
    add("jax.numpy.pad", {}, lambda x: jnp.pad(x, 1), f2)
    add("jax.numpy.tile", {}, lambda x: jnp.tile(x, (2, 1)), f2)
    add("jax.numpy.repeat", {}, lambda x: jnp.repeat(x, 2, axis=0), f2)
    add("jax.numpy.roll", {"shift": "int"}, lambda x: jnp.roll(x, 1, axis=1), f2)
    add("jax.numpy.split", {}, lambda x: jnp.split(x, 2, axis=1), f2)
    add("jax.numpy.array_split", {}, lambda x: jnp.array_split(x, 2, axis=1), f2)
    for fname in ("concatenate", "stack", "hstack", "vstack", "column_stack", "dstack"):
        add(f"jax.numpy.{fname}", {}, lambda x, y, fname=fname: getattr(jnp, fname)([x, y]), f2, g2)
    add("jax.numpy.concatenate", {"axis": "int"}, lambda x, y: jnp.concatenate([x, y], axis=1), f2, g2)
    add("jax.lax.concatenate", {}, lambda x, y: lax.concatenate([x, y], 1), f2, g2)

    # Slicing and dynamic slicing.
    add("jax.lax.slice", {}, lambda x: lax.slice(x, (0, 0), (4, 4)), f2)
    add("jax.lax.slice_in_dim", {}, lambda x: lax.slice_in_dim(x, 0, 4, axis=1), f2)
    add("jax.lax.index_in_dim", {}, lambda x: lax.index_in_dim(x, 0, axis=0), f2)
    for start_facts, start in ((traced_start, scalar_i), (static_start, 2)):
        add("jax.lax.dynamic_slice", start_facts, lambda x, s=start: lax.dynamic_slice(x, (s, 0), (4, 8)), f2)
        add("jax.lax.dynamic_slice_in_dim", start_facts,
            lambda x, s=start: lax.dynamic_slice_in_dim(x, s, 4, axis=0), f2)
        add("jax.lax.dynamic_index_in_dim", start_facts,
            lambda x, s=start: lax.dynamic_index_in_dim(x, s, axis=0), f2)
        add("jax.lax.dynamic_update_slice", start_facts,
            lambda x, s=start: lax.dynamic_update_slice(x, x[:4], (s, 0)), f2)
        add("jax.lax.dynamic_update_slice_in_dim", start_facts,
            lambda x, s=start: lax.dynamic_update_slice_in_dim(x, x[:4], s, axis=0), f2)
        add("jax.lax.dynamic_update_index_in_dim", start_facts,
            lambda x, s=start: lax.dynamic_update_index_in_dim(x, x[0], s, axis=0), f2)
    add("jax.numpy.take", {"axis": "int"}, lambda x, i: jnp.take(x, i, axis=0), f2, idx1)
    add("jax.numpy.take_along_axis", {"axis": "int"}, lambda x, i: jnp.take_along_axis(x, i, axis=1), f2, idx)
    add("jax.numpy.take_along_axis", {"axis": None}, lambda x, i: jnp.take_along_axis(x, i.ravel(), axis=None), f2, idx)

    # Types.
    for dt in ("int32", "float32", "bfloat16"):
        add("jax.lax.convert_element_type", {"new_dtype": dt}, lambda x, dt=dt: lax.convert_element_type(x, dt), f2)
        add("jax.Array.astype", {"dtype": dt}, lambda x, dt=dt: x.astype(dt), f2)
        add("jax.numpy.astype", {"dtype": dt}, lambda x, dt=dt: jnp.astype(x, dt), f2)
    for dt in ("int32", "float32"):
        add("jax.lax.bitcast_convert_type", {"new_dtype": dt}, lambda x, dt=dt: lax.bitcast_convert_type(x, dt), f2)
        add("jax.numpy.asarray", {"dtype": dt}, lambda x, dt=dt: jnp.asarray(x, dt), f2)
        add("jax.numpy.array", {"dtype": dt}, lambda x, dt=dt: jnp.array(x, dt), f2)

    # Elementwise with static or scalar arguments.
    add("jax.lax.integer_pow", {}, lambda x: lax.integer_pow(x, 3), f2)
    add("jax.lax.clamp", {"min": "float", "max": "float"}, lambda x: lax.clamp(0.0, x, 1.0), f2)
    add("jax.numpy.clip", {"min": "float", "max": "float"}, lambda x: jnp.clip(x, 0.0, 1.0), f2)
    add("jax.numpy.round", {"decimals": "int"}, lambda x: jnp.round(x, 2), f2)
    add("jax.lax.reduce_precision", {}, lambda x: lax.reduce_precision(x, 8, 7), f2)
    add("jax.nn.one_hot", {}, lambda i: jax.nn.one_hot(i, 8), idx1)
    for where_dtype in ("bool",):
        where_facts = {"arg_dtype": where_dtype, "arg_ndim": 2, "condition": "array", "y": "array"}
        add("jax.numpy.where", dict(where_facts, x="array"), lambda m, x, y: jnp.where(m, x, y), mask, f2, g2)
        add("jax.numpy.where", dict(where_facts, x="float"),
            lambda m, y: jnp.where(m, 0.0, y), mask, f2)
        add("jax.lax.select", {"arg_dtype": where_dtype}, lambda m, x, y: lax.select(m, x, y), mask, f2, g2)
        add("jax.lax.select_n", {"arg_dtype": where_dtype}, lambda m, x, y: lax.select_n(m, x, y), mask, f2, g2)

    # Reductions, sorting, selection.
    add("jax.lax.argmax", {}, lambda x: lax.argmax(x, 1, jnp.int32), f2)
    add("jax.lax.argmin", {}, lambda x: lax.argmin(x, 1, jnp.int32), f2)
    add("jax.lax.reduce", {"computation": "jax.lax.add"}, lambda x: lax.reduce(x, 0.0, lax.add, (1,)), f2)
    add("jax.lax.reduce", {"computation": "jax.lax.max"}, lambda x: lax.reduce(x, -jnp.inf, lax.max, (1,)), f2)
    for facts, x in ((f32_facts, f2), (i32_facts, i2)):
        add("jax.lax.top_k", dict(facts, is_stable=True), lambda x: lax.top_k(x, 2), x)
        add("jax.lax.top_k", dict(facts, is_stable=False), lambda x: lax.top_k(x, 2, is_stable=False), x)
    table.defaults["jax.lax.top_k"] = {"is_stable": True}
    for reduction in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
        for facts, x in ((f32_facts, f2), (i32_facts, i2)):
            add(f"jax.lax.{reduction}", facts, lambda x, r=reduction: getattr(lax, r)(x, (1,)), x)
    for reduction in ("reduce_and", "reduce_or", "reduce_xor"):
        add(f"jax.lax.{reduction}", {"arg_dtype": "bool"}, lambda m, r=reduction: getattr(lax, r)(m, (1,)), mask)
    add("jax.lax.rev", {}, lambda x: lax.rev(x, (1,)), f2)
    add("jax.lax.split", {}, lambda x: lax.split(x, (4, 4), axis=1), f2)
    add("jax.lax.tile", {}, lambda x: lax.tile(x, (2, 1)), f2)
    add("jax.lax.broadcast_to_rank", {}, lambda x: lax.broadcast_to_rank(x, 3), f2)
    add("jax.lax.collapse", {}, lambda x: lax.collapse(x, 0), f2)
    for dt in ("int32", "float32"):
        add("jax.lax.empty", {"dtype": dt}, lambda dt=dt: lax.empty((8, 8), dt))
    for fname in ("approx_max_k", "approx_min_k"):
        add(f"jax.lax.{fname}", {}, lambda x, fname=fname: getattr(lax, fname)(x, 2), f2)
    add("jax.numpy.top_k", {}, lambda x: jnp.top_k(x, 2), f2)
    add("jax.numpy.partition", {}, lambda x: jnp.partition(x, 2, axis=1), f2)
    add("jax.numpy.argpartition", {}, lambda x: jnp.argpartition(x, 2, axis=1), f2)
    add("jax.Array.argpartition", {}, lambda x: x.argpartition(2, axis=1), f2)
    add("jax.numpy.hsplit", {}, lambda x: jnp.hsplit(x, 2), f2)
    add("jax.numpy.vsplit", {}, lambda x: jnp.vsplit(x, 2), f2)
    add("jax.numpy.permute_dims", {}, lambda x: jnp.permute_dims(x, (1, 0)), f2)
    add("jax.numpy.rollaxis", {}, lambda x: jnp.rollaxis(x, 1), f2)
    add("jax.numpy.resize", {}, lambda x: jnp.resize(x, (4, 16)), f2)
    add("jax.numpy.put_along_axis", {}, lambda x, i: jnp.put_along_axis(x, i, 0.0, axis=1, inplace=False), f2, idx)
    add("jax.lax.sort", {"num_keys": "int"}, lambda x, y: lax.sort((x, y), num_keys=1), f2, g2)

    # Matrix products.
    for facts, (x, y), pet in (
            ({"arg_dtype": "float32"}, (f2, g2), None),
            ({"arg_dtype": "bfloat16", "preferred_element_type": "float32"}, (bf2, bf2), jnp.float32),
            ({"arg_dtype": "int8", "preferred_element_type": "int32"}, (i8, i8), jnp.int32)):
        add("jax.numpy.dot", facts, lambda x, y, pet=pet: jnp.dot(x, y, preferred_element_type=pet), x, y)
        add("jax.numpy.matmul", facts, lambda x, y, pet=pet: jnp.matmul(x, y, preferred_element_type=pet), x, y)
        add("jax.lax.dot", facts, lambda x, y, pet=pet: lax.dot(x, y, preferred_element_type=pet), x, y)
        add("jax.lax.dot_general", facts,
            lambda x, y, pet=pet: lax.dot_general(x, y, (((1,), (0,)), ((), ())), preferred_element_type=pet), x, y)
        add("jax.numpy.einsum", facts,
            lambda x, y, pet=pet: jnp.einsum("ij,jk->ik", x, y, preferred_element_type=pet), x, y)

    # Control flow: the primitives of the call itself; the primitives of the functions passed in
    # are the user's own code and are not part of these entries.
    control_note = ("primitives of the control flow itself; those of the functions passed in "
                    "are not included")
    add("jax.lax.scan", {"xs": None, "ys": "none", "reverse": False},
        lambda x: lax.scan(lambda c, _: (c, None), x, None, length=4)[0], f2, note=control_note)
    add("jax.lax.scan", {"xs": None, "ys": "stacked", "reverse": False},
        lambda x: lax.scan(lambda c, _: (c, c), x, None, length=4)[1], f2)
    add("jax.lax.scan", {"xs": "array", "ys": "stacked", "reverse": False},
        lambda x: lax.scan(lambda c, r: (c + r, r), x[0], x)[1], f2)
    add("jax.lax.scan", {"xs": None, "ys": "none", "reverse": True},
        lambda x: lax.scan(lambda c, _: (c, None), x, None, length=4, reverse=True)[0], f2)
    table.defaults["jax.lax.scan"] = {"reverse": False}
    add("jax.lax.fori_loop", {"bounds": "static"},
        lambda x: lax.fori_loop(0, 4, lambda k, a: a, x), f2, note=(
            control_note + "; bounds 'static' means Python ints (jax lowers it to a scan), "
            "'traced' means a traced lower or upper bound (a while loop)"))
    add("jax.lax.fori_loop", {"bounds": "traced"},
        lambda x, n: lax.fori_loop(0, n, lambda k, a: a, x), f2, scalar_i)
    add("jax.lax.while_loop", {}, lambda x: lax.while_loop(lambda a: a[0, 0] < 10.0, lambda a: a, x),
        f2, note=control_note)
    add("jax.lax.cond", {"pred": "array"}, lambda x, p: lax.cond(p, lambda a: a, lambda a: a, x),
        f2, scalar_i > 0, note=control_note + "; pred 'bool' is a Python bool")
    add("jax.lax.cond", {"pred": True}, lambda x: lax.cond(True, lambda a: a, lambda a: a, x), f2)
    add("jax.lax.switch", {}, lambda x, i: lax.switch(i, [lambda a: a, lambda a: a], x), f2, scalar_i,
        note=control_note)
    add("jax.lax.map", {}, lambda x: lax.map(lambda r: r, x), f2, note=control_note)
    add("jax.lax.associative_scan", {}, lambda x: lax.associative_scan(lax.add, x, axis=1), f2,
        note="with fn=jax.lax.add")

    # Array methods: generic args, like the functions.
    from jax._src.numpy import array_methods

    for method in sorted(array_methods._array_methods):
        if method.startswith("_") or method == "astype":
            continue
        trace_generic(table, f"jax.Array.{method}",
                      lambda x, *a, _m=method, **k: getattr(x, _m)(*a, **k),
                      signature_of=array_methods._array_methods[method], bound=True)
    add("jax.Array.reshape", {}, lambda x: x.reshape(4, 16), f2)
    add("jax.Array.transpose", {"axes": "tuple"}, lambda x: x.transpose(1, 0), f2)
    add("jax.Array.swapaxes", {}, lambda x: x.swapaxes(0, 1), f2)
    add("jax.Array.repeat", {}, lambda x: x.repeat(2, axis=0), f2)
    add("jax.Array.take", {}, lambda x, i: x.take(i, axis=0), f2, idx1)
    add("jax.Array.clip", {"min": "float", "max": "float"}, lambda x: x.clip(0.0, 1.0), f2)
    for prop in ("T", "mT", "real", "imag"):
        for facts, x in ((f32_facts, f2), (i32_facts, i2)):
            add(f"jax.Array.{prop}", facts, lambda x, prop=prop: getattr(x, prop), x)

    # Operators: the other operand an array of the same dtype, a Python int or a Python float.
    from jax._src.numpy.array_methods import _array_operators

    others = {"array": None, "int": 3, "float": 2.0}
    for op in sorted(_array_operators):
        dunder = f"__{op}__"
        if op in ("getitem", "setitem", "contains", "deepcopy", "copy"):
            continue
        name = f"jax.Array.{dunder}"
        unary = op in ("neg", "pos", "abs", "invert", "round")
        for facts, x, y in ((f32_facts, f2, g2), (i32_facts, i2, j2)):
            if unary:
                add(name, facts, lambda x, d=dunder: getattr(x, d)(), x)
                continue
            for kind, literal in others.items():
                other = y if literal is None else literal
                add(name, dict(facts, other=kind),
                    lambda x, other=other, d=dunder: getattr(x, d)(other), x)
    table.notes["jax.Array.__pow__"] = "x ** 3 (other 'int', a Python int) is integer_pow"
    add("jax.Array.__copy__", {}, lambda x: x.__copy__(), f2)

    # Indexing. Index kinds: 'ellipsis' x[...]; 'static_int' x[0] / x[0, 0]; 'static_slice'
    # x[:, :4]; 'strided_slice' x[::2]; 'reverse_slice' x[::-1]; 'newaxis' x[None];
    # 'traced_int' x[i] with i traced; 'int_array' x[idx] with an int array.
    index_kinds = {
        "ellipsis": (lambda x, i: x[...]),
        "static_int": (lambda x, i: x[0]),
        "static_ints": (lambda x, i: x[0, 0]),
        "static_slice": (lambda x, i: x[:, :4]),
        "strided_slice": (lambda x, i: x[::2]),
        "reverse_slice": (lambda x, i: x[::-1]),
        "newaxis": (lambda x, i: x[None]),
        "traced_int": (lambda x, i: x[i]),
        "int_array": (lambda x, i: x[idx1]),
    }
    for kind, fn in index_kinds.items():
        for facts, x in ((f32_facts, f2), (i32_facts, i2)):
            add("jax.Array.__getitem__", dict(facts, index=kind), fn, x, scalar_i)
    table.notes["jax.Array.__getitem__"] = (
        "index: ellipsis x[...], static_int x[0], static_ints x[0, 0], static_slice x[:, :4], "
        "strided_slice x[::2], reverse_slice x[::-1], newaxis x[None], traced_int x[i] with i "
        "traced, int_array x[idx] with an int array")
    at_index = {
        "ellipsis": (lambda i: ...), "static_int": (lambda i: 0), "static_ints": (lambda i: (0, 0)),
        "static_slice": (lambda i: (slice(None), slice(None, 4))),
        "reverse_slice": (lambda i: slice(None, None, -1)),
        "traced_int": (lambda i: i), "int_array": (lambda i: idx1),
    }
    for update in ("set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max",
                   "get", "apply"):
        name = f"jax.Array.at[].{update}"
        for kind, make_index in at_index.items():
            for facts, x in ((f32_facts, f2), (i32_facts, i2)):
                def fn(x, i, make_index=make_index, update=update):
                    ref = x.at[make_index(i)]
                    if update == "get":
                        return ref.get()
                    if update == "apply":
                        return ref.apply(lambda v: v)
                    value = 2 if update == "power" else x.dtype.type(1)
                    return getattr(ref, update)(value)
                add(name, dict(facts, index=kind), fn, x, scalar_i)
        table.notes[name] = "index kinds as for jax.Array.__getitem__; apply with the identity"


def function_tables() -> tuple[dict, Table]:
    table = Table()
    for name, fn in public_callables():
        if name in NOT_ARRAY_FUNCTIONS:
            table.excluded[name] = NOT_ARRAY_FUNCTIONS[name]
            continue
        trace_generic(table, name, fn)
    trace_special(table)
    return table.entries(), table


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------

def dump(obj: dict, entry_keys: tuple[str, ...]) -> str:
    """Sorted JSON, the entries of each mapping named in entry_keys one per line."""
    lines = ["{"]
    items = sorted(obj.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n + 1 < len(items) else ""
        if key in entry_keys and isinstance(value, dict):
            lines.append(f" {json.dumps(key)}: {{")
            sub = sorted(value.items())
            for m, (k, v) in enumerate(sub):
                c = "," if m + 1 < len(sub) else ""
                lines.append(f"  {json.dumps(k)}: {json.dumps(v, sort_keys=True)}{c}")
            lines.append(" }" + comma)
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, sort_keys=True)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def name_collisions(primitive_objects: dict, registries: dict) -> dict:
    """Primitive names the tables cannot tell apart: a traced name standing for two primitive
    objects, one lowered by a backend and one not (the tables are keyed by name)."""
    out = {}
    for name, objs in primitive_objects.items():
        if len(objs) < 2:
            continue
        for backend, rules in registries.items():
            lowered = {obj in rules for obj in objs}
            if len(lowered) > 1:
                out.setdefault(name, []).append(backend)
    return {k: sorted(v) for k, v in sorted(out.items())}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    opts = parser.parse_args()

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.pop("JAX_PALLAS_USE_MOSAIC_GPU", None)  # release_facts reads the flag's default
    signal.signal(signal.SIGALRM, _on_alarm)
    import jax
    import jaxlib

    backends, registries = backend_tables()
    functions, table = function_tables()
    collisions = name_collisions(table.primitive_objects, registries)

    backends_text = dump({"backends": backends["backends"], "schema": SCHEMA_VERSION},
                         ("backends",))
    functions_text = dump({"functions": functions, "schema": SCHEMA_VERSION}, ("functions",))
    metadata = {
        "schema": SCHEMA_VERSION,
        "jax_version": jax.__version__,
        "jaxlib_version": jaxlib.__version__,
        "python_version": ".".join(map(str, sys.version_info[:2])),
        "command": COMMAND,
        "backends_table": ("backends.json: per backend, the names of the primitives its Pallas "
                           "lowering registers a rule for (see each backend's 'how'); a "
                           "registered rule can still reject parameters, shapes, dtypes or "
                           "layouts"),
        "functions_table": (
            "functions.json: public name -> primitives jax.make_jaxpr records (recursively "
            "through sub-jaxprs) when tracing the call on small arrays: generically on 1 to 3 "
            f"arrays of dtype {'/'.join(GENERIC_DTYPES)} and shapes "
            f"{' and '.join(str(s) for s in GENERIC_SHAPES.values())} (facts arg_dtype, "
            "arg_ndim, and each positional parameter filled: 'array'), each boolean keyword "
            f"flipped and {', '.join(INT_VARIED_KEYWORDS)} given an int; plus hand-chosen calls "
            "for functions that need shapes, dtypes, callables or static ints, array methods, "
            "properties, operators (fact other: array/int/float), indexing and .at[] updates "
            "(fact index). An entry has 'primitives', or 'variants' each with the 'facts' it "
            "was traced with; 'traced_with' lists facts that were constant or did not matter; "
            "'defaults' the facts an omitted keyword stands for. Fact values: bools, None and "
            "strings as themselves, Python ints 'int', floats 'float', tuples 'tuple', arrays "
            "'array'. Higher-order functions list only their own primitives."),
        "modules_traced": list(MODULES),
        "skipped": dict(sorted(table.skipped().items())),
        "pallas_import_failures": backends["import_failures"],
        "primitive_name_collisions": collisions,
    }
    opts.out.mkdir(parents=True, exist_ok=True)
    release = dict(release_facts(), schema=SCHEMA_VERSION, jax_version=jax.__version__)
    tables = {"backends.json": backends_text, "functions.json": functions_text,
              "release.json": dump(release, ("public_names",))}
    unchanged = all((opts.out / n).exists() and (opts.out / n).read_text() == t
                    for n, t in tables.items())
    date = datetime.date.today().isoformat()
    meta_path = opts.out / "metadata.json"
    if unchanged and meta_path.exists():
        try:
            old = json.loads(meta_path.read_text())
            if {k: v for k, v in old.items() if k != "date"} == json.loads(json.dumps(metadata)):
                date = old.get("date", date)
        except ValueError:
            pass
    metadata["date"] = date
    tables["metadata.json"] = dump(metadata, ("skipped",))
    for name, text in tables.items():
        path = opts.out / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    n_variants = sum(len(e.get("variants", [None])) for e in functions.values())
    print(f"jax {jax.__version__}: {len(backends['backends'])} backends, {len(functions)} "
          f"functions ({n_variants} variants), {len(table.skipped())} skipped -> {opts.out}")
    return 0


if __name__ == "__main__":
    _reexec_under_oracle_env()
    sys.exit(main())
