"""The lowering tables: which primitives a public jax function emits, and which primitives each
Pallas backend lowers.

The tables are data generated from each supported jax release by ``scripts/gen_lowering_tables.py``
and shipped per release in ``pallas_lsp/records/releases/jax-<version>/`` (backends.json,
functions.json, metadata.json, and release.json: the release's own facts, such as the backend a
plain GPU ``pallas_call`` lowers through and the public names of each Pallas module); this module
only reads them (no jax import). How they were made, and what they hold, is in metadata.json.
``lowering/alternatives.json``, written by hand, says what a kernel can write instead of some
operations; the oracle lowers each alternative, and the operation it replaces, for every backend
it names, under the pinned release only, so only that release's tables offer them.

A function entry maps to primitives either directly or through variants, each traced under some
*facts*: keyword values (``approximate``: False), the kind of a positional argument (``"array"``,
``"int"``, ``"float"``), and a few facts of their own (``arg_dtype``, ``arg_ndim`` of the first
array, ``index`` for indexing, ``other`` for operators, ``bounds`` for ``fori_loop``). A query
gives the facts it knows; a keyword it leaves out stands for the keyword's default; a variant
matches when every fact both name agrees. The answer is what every matching variant emits
(``always``) and what some do (``sometimes``).
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any


class _Unknown:
    """A fact whose value the caller cannot tell (a keyword passed a non-literal)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

# Backend names of the tables: Mosaic TPU per core type, Triton, Mosaic GPU per lowering
# semantics (and, for the *_warp_threads ones, user thread semantics Warp).
TPU = "tpu"
TRITON = "triton"
MOSAIC_GPU_WARPGROUP = "mosaic_gpu_warpgroup"
MOSAIC_GPU_LANE = "mosaic_gpu_lane"


def fact_value(value: Any) -> Any:
    """A Python value as the tables record it: bools, None and strings as themselves, ints as
    "int", floats as "float", tuples and lists as "tuple". (The generator does the same.)"""
    if value is None or isinstance(value, (bool, str)) or value is UNKNOWN:
        return value
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (tuple, list)):
        return "tuple"
    return "array"


# Facts whose values are taken as given rather than normalised by fact_value: the rank of the
# first array argument is recorded as the int itself.
RAW_FACTS = frozenset({"arg_ndim"})


def _normalised(name: str, value: Any) -> Any:
    return value if name in RAW_FACTS else fact_value(value)


@dataclass(frozen=True)
class Emitted:
    """The primitives a call emits: in every traced variant that matches (always), in some
    (sometimes). exact is False when a fact of the query was never traced (the answer then
    comes from the variants traced under other values)."""

    always: frozenset[str]
    sometimes: frozenset[str]
    variants: int
    exact: bool


@dataclass(frozen=True)
class Backend:
    name: str
    primitives: frozenset[str]
    how: str
    error: str


class LoweringTables:
    """The three tables, loaded once (see :func:`tables`)."""

    def __init__(self, backends: Mapping, functions: Mapping, metadata: Mapping,
                 alternatives: Mapping | None = None) -> None:
        self._backends = {
            name: Backend(name, frozenset(entry["primitives"]), entry.get("how", ""),
                          entry.get("error", ""))
            for name, entry in backends["backends"].items()
        }
        self._functions = dict(functions["functions"])
        self.metadata = dict(metadata)
        self._instead = {a["primitive"]: a for a in (alternatives or {}).get("alternatives", ())}

    @property
    def jax_version(self) -> str:
        return self.metadata.get("jax_version", "")

    @property
    def jaxlib_version(self) -> str:
        return self.metadata.get("jaxlib_version", "")

    # -- backends ---------------------------------------------------------------------------

    def backend_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._backends))

    def backend(self, name: str) -> Backend:
        return self._backends[name]

    def lowers(self, backend: str, primitive: str) -> bool:
        """Does the backend's Pallas lowering register a rule for the primitive? (A rule can
        still reject parameters, shapes, dtypes or layouts.)"""
        return primitive in self._backends[backend].primitives

    def alternatives(self) -> tuple[Mapping, ...]:
        """The entries of alternatives.json."""
        return tuple(self._instead.values())

    def instead(self, primitive: str, backend: str) -> str | None:
        """What a kernel can write instead of an operation emitting ``primitive``, where that
        was lowered for ``backend`` (alternatives.json, each checked under the pinned jax by
        tests/oracle/test_lowering_alternatives.py); None where none is known."""
        entry = self._instead.get(primitive)
        return entry["instead"] if entry is not None and backend in entry["backends"] else None

    def lowered_by_none(self, primitive: str, backends: Sequence[str] = (
            TPU, TRITON, MOSAIC_GPU_WARPGROUP, MOSAIC_GPU_LANE)) -> bool:
        return not any(self.lowers(b, primitive) for b in backends)

    # -- functions --------------------------------------------------------------------------

    def function_names(self) -> tuple[str, ...]:
        return tuple(sorted(self._functions))

    def knows(self, function: str) -> bool:
        return function in self._functions

    def parameters(self, function: str) -> tuple[str, ...]:
        """The positional parameter names of the function, as traced ('*name' for varargs)."""
        return tuple(self._functions.get(function, {}).get("params", ()))

    def fact_names(self, function: str) -> frozenset[str]:
        """The facts the tables know for the function (defaults, what it was traced with, what
        its variants are keyed by); a query's other facts did not change what was traced."""
        return frozenset(_fact_names(self._functions.get(function, {})))

    def varied_facts(self, function: str) -> frozenset[str]:
        """The facts the function's variants differ on (what it emits depends on them)."""
        return frozenset(k for v in self._functions.get(function, {}).get("variants", ()) for k in v["facts"])

    def skipped(self) -> Mapping[str, str]:
        """Public callables the generator could not trace, with the reason."""
        return self.metadata.get("skipped", {})

    def emitted(self, function: str, facts: Mapping[str, Any] | None = None,
                positional: Sequence[Any] = ()) -> Emitted | None:
        """The primitives ``function`` emits when called with these facts, or None when the
        function is not in the table. ``facts``: keyword values and fact names (values as
        Python values, or :data:`UNKNOWN`; dtypes as names such as "float32"). ``positional``:
        the values passed positionally, mapped to the parameter names (UNKNOWN where the
        argument is not a literal)."""
        entry = self._functions.get(function)
        if entry is None:
            return None
        query = {k: _normalised(k, v) for k, v in entry.get("defaults", {}).items()}
        for name, value in zip(self.parameters(function), positional):
            if name.startswith("*"):
                break
            query[name] = _normalised(name, value)
        for name, value in (facts or {}).items():
            query[name] = _normalised(name, value)
        known = {k: v for k, v in query.items() if v is not UNKNOWN}

        exact = _traced_with_covers(entry.get("traced_with", {}), known) and all(
            k in _fact_names(entry) for k in known)
        if "primitives" in entry:
            prims = frozenset(entry["primitives"])
            return Emitted(prims, prims, 1, exact)
        variants = entry["variants"]
        matching = [v for v in variants if _matches(v["facts"], known)]
        if not matching:
            # A fact no variant was traced with: answer from the variants that agree on the
            # facts that were traced, and say it is not exact.
            exact = False
            traced = {k for v in variants for k in v["facts"]}
            relaxed = {k: v for k, v in known.items()
                       if k in traced and any(var["facts"].get(k, v) == v for var in variants)}
            matching = [v for v in variants if _matches(v["facts"], relaxed)] or variants
        sets = [frozenset(v["primitives"]) for v in matching]
        return Emitted(frozenset.intersection(*sets), frozenset.union(*sets), len(matching), exact)

    def unlowered(self, backend: str, function: str, facts: Mapping[str, Any] | None = None,
                  positional: Sequence[Any] = ()) -> frozenset[str] | None:
        """The primitives the call surely emits that the backend has no lowering rule for
        (None when the function is not in the table)."""
        emitted = self.emitted(function, facts, positional)
        if emitted is None:
            return None
        return frozenset(p for p in emitted.always if not self.lowers(backend, p))


def _fact_names(entry: Mapping[str, Any]) -> set[str]:
    names = set(entry.get("traced_with", {})) | set(entry.get("defaults", {}))
    for variant in entry.get("variants", ()):
        names.update(variant["facts"])
    return names


def _matches(variant_facts: Mapping[str, Any], known: Mapping[str, Any]) -> bool:
    return all(variant_facts[k] == v for k, v in known.items() if k in variant_facts)


def _traced_with_covers(traced_with: Mapping[str, Any], known: Mapping[str, Any]) -> bool:
    for key, traced in traced_with.items():
        if key not in known:
            continue
        values = traced if isinstance(traced, list) else [traced]
        if known[key] not in values:
            return False
    return True


# The release the rules, records and corpora are verified on (the oracle's jax).
PINNED_RELEASE = "0.12.0.1"
_RELEASES = resources.files("pallas_lsp.records") / "releases"


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())


@lru_cache(maxsize=1)
def shipped_releases() -> tuple[str, ...]:
    """The jax releases whose tables ship, oldest first."""
    names = [p.name[len("jax-"):] for p in _RELEASES.iterdir() if p.name.startswith("jax-")]
    return tuple(sorted(names, key=_version_key))


def _read_release(release: str, name: str) -> Any:
    return json.loads((_RELEASES / f"jax-{release}" / name).read_text("utf-8"))


@dataclass(frozen=True)
class ReleaseFacts:
    """What a jax release is, beside its tables (release.json, read from that release's jax)."""

    version: str
    gpu_pallas_call_default: str  # "triton" or "mosaic_gpu": a GPU pl.pallas_call without params
    mosaic_gpu_default_lowering_semantics: str | None  # "Lane" or "Warpgroup"
    public_names: Mapping[str, frozenset[str]]

    def has_api(self, qualified: str) -> bool:
        """Whether the release exports ``qualified`` (e.g. ``jax.experimental.pallas.mosaic_gpu.
        InterpretGPUParams``); a module the release could not import exports nothing."""
        module, _, name = qualified.rpartition(".")
        return name in self.public_names.get(module, frozenset())


@lru_cache(maxsize=None)
def release_facts(release: str = PINNED_RELEASE) -> ReleaseFacts:
    data = _read_release(release, "release.json")
    public = {module: frozenset(names) for module, names in data["public_names"].items()
              if isinstance(names, list)}
    return ReleaseFacts(data["jax_version"], data["gpu_pallas_call_default"]["backend"],
                        data.get("mosaic_gpu_default_lowering_semantics"), public)


@lru_cache(maxsize=None)
def tables(release: str = PINNED_RELEASE) -> LoweringTables:
    """The shipped tables of a release, read once each."""
    alternatives = (json.loads((resources.files("pallas_lsp.records") / "lowering" / "alternatives.json")
                               .read_text("utf-8")) if release == PINNED_RELEASE else None)
    return LoweringTables(_read_release(release, "backends.json"), _read_release(release, "functions.json"),
                          _read_release(release, "metadata.json"), alternatives)
