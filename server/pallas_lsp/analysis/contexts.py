"""Execution contexts: in which mode a launch runs its kernel, and the evidence.

What JAX does (measured under jax 0.12, see docs/contexts.md):

* ``interpret=`` and an active ``force_*_interpret_mode`` / ``set_*_interpret_mode`` are
  read when ``pl.pallas_call``, ``pl.kernel`` and ``pl.core_map`` *build* the launch,
  and when a ``plgpu.kernel`` is *called*.
* A forced mode wins over an explicit ``interpret=``.
* Without interpret, ``plgpu.kernel`` and kernels on a ``plgpu.Mesh`` or with
  ``plgpu.CompilerParams`` are compiled by Mosaic GPU.
"""
from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from .module import Span


@dataclass(frozen=True)
class JaxRelease:
    """The jax release the code is checked against, as plain values (the caller reads them
    from that release's shipped facts; the defaults are the pinned release's)."""

    version: str = ""  # the shipped release whose tables the rules read ("": the pinned one)
    # The backend a GPU ``pl.pallas_call`` without compiler params lowers through.
    gpu_pallas_call_backend: str = "triton"  # or "mosaic_gpu" (0.10.2)
    # Mosaic GPU's lowering semantics when the code does not say ("warpgroup" or "lane").
    mosaic_gpu_semantics: str = "warpgroup"
    # Module -> its public names (empty: not known, every API taken to exist).
    public_names: "Mapping[str, frozenset[str]]" = field(default_factory=dict, compare=False, hash=False)

    def lacks_api(self, qualified: str) -> bool:
        """Whether the release surely does not export ``qualified`` (``jax.experimental.pallas.
        mosaic_gpu.InterpretGPUParams``): its module's public names are known and lack it."""
        module, _, name = qualified.rpartition(".")
        names = self.public_names.get(module)
        return names is not None and name not in names


class Mode(str, enum.Enum):
    INTERPRET = "interpret"  # interpret=True: the generic (HLO) interpreter
    TPU_INTERPRET = "tpu-interpret"  # pltpu.InterpretParams / force_tpu_interpret_mode
    GPU_INTERPRET = "gpu-interpret"  # plgpu.InterpretGPUParams / force_gpu_interpret_mode
    MOSAIC_GPU = "mosaic-gpu"  # compiled by Mosaic GPU
    TRITON = "triton"
    TPU = "tpu"  # compiled by Mosaic TPU
    COMPILED = "compiled"  # compiled, backend not known
    UNKNOWN = "unknown"

    @property
    def is_interpret(self) -> bool:
        return self in (Mode.INTERPRET, Mode.TPU_INTERPRET, Mode.GPU_INTERPRET)

    @property
    def words(self) -> str:
        return MODE_WORDS[self]


MODE_WORDS = {
    Mode.INTERPRET: "interpret mode (interpret=True, the generic interpreter)",
    Mode.TPU_INTERPRET: "TPU interpret mode",
    Mode.GPU_INTERPRET: "GPU interpret mode",
    Mode.MOSAIC_GPU: "a compiled Mosaic GPU kernel",
    Mode.TRITON: "a compiled Triton kernel",
    Mode.TPU: "a compiled Mosaic TPU kernel",
    Mode.COMPILED: "a compiled kernel (backend decided at run time)",
    Mode.UNKNOWN: "a mode the analysis cannot determine (a run-time value)",
}
CPU_HOST_WORDS = {
    Mode.INTERPRET: "interpret mode on a CPU host only (the generic interpreter; compiled elsewhere)",
    Mode.TPU_INTERPRET: "TPU interpret mode on a CPU host only",
    Mode.GPU_INTERPRET: "GPU interpret mode on a CPU host only",
}


@dataclass(frozen=True)
class Evidence:
    span: Span
    note: str  # e.g. "interpret=True", "with plgpu.force_gpu_interpret_mode()", "called from main"
    path: str | None = None  # another module, for cross-module evidence


# How the code (or the ``backends`` setting) says a compiled launch runs on a CPU host, where
# Pallas only interprets (``Context.host_reason``); "setter", a force_/set_ call that misses the
# launch, is a kind of its own.
CPU_HOST_REASONS = frozenset({"pinned", "host-test", "lowered", "configured"})


@dataclass(frozen=True)
class Context:
    mode: Mode
    evidence: tuple[Evidence, ...] = ()  # first: the line that decides the mode
    certain: bool = True  # False: "interpret on CPU hosts" (jax.default_backend() == "cpu")
    inline_mgpu: str | None = "error"  # GPU interpret params' inline_mgpu ("error", "ignore"; None: unknown)
    forced: bool = False  # set by a force_/set_ interpret-mode call
    cuda_lowering: bool = False  # compiled for CUDA by an explicit lower()/export
    # The platform an explicit lower()/export compiles for ("cuda", "rocm", "tpu"), if any.
    lowered_for: str | None = None
    # Mosaic GPU's lowering semantics ("warpgroup", the default, or "lane"); None elsewhere.
    lowering_semantics: str | None = None
    # The backend comes from the ``backends`` setting, not from the code.
    configured: bool = False
    # Compiled, and the code says it runs on a CPU host, where Pallas only interprets (the
    # first evidence says how: the CPU platform pinned, an inverted host test, a force_ or
    # set_ interpret-mode call that misses the launch).
    cpu_host: bool = False
    # How the code says so: "pinned", "host-test", "lowered" or "setter" (a force_/set_ call
    # that misses the launch or one of its calls: its own kind).
    host_reason: str = ""
    # On a CPU host: the line that is itself the mistake (a force_ call that misses the
    # launch, a call made outside it), if one is; else the launch is.
    host_span: Span | None = None
    # A what-if: the launch is compiled, and analysed as if launched in this interpret mode
    # ("true", "tpu", "gpu"; ``--assume-interpret``).
    assumed: str | None = None
    caller: str = ""  # "`test_mha` (tests/test_attention.py:40)" when a caller decides the mode
    # Where the interpret params are built (the InterpretGPUParams(...) call, or the force_
    # call that creates default ones), for fixes that edit them.
    params_site: object = field(default=None, compare=False, hash=False)
    # The launch's own interpret= keyword decides the mode (a fix may remove it).
    from_launch_keyword: bool = False
    # The callers' invocations this context came through, innermost first: ((function, call
    # site), ...). A launcher called twice (``make(body_a)``, ``make(body_b, interpret=...)``)
    # runs each call's own kernel in that call's mode.
    via: tuple = field(default=(), compare=False, hash=False)
    # The kernels this context runs (None: all of the launch's kernels).
    kernels: tuple | None = field(default=None, compare=False, hash=False)
    # The class whose instance runs the launch (``interpret=self.INTERPRET`` in a test class
    # and each of its subclasses): a classes.ClassRef, or None.
    self_class: object = field(default=None, compare=False, hash=False)

    @property
    def mode_line(self) -> int | None:
        return self.evidence[0].span.line if self.evidence else None

    @property
    def words(self) -> str:
        """The mode in words; a host test (``jax.default_backend() == "cpu"``) interprets only
        on a CPU host, so it is not described as ``interpret=True``."""
        if not self.certain and self.mode.is_interpret:
            return CPU_HOST_WORDS.get(self.mode, self.mode.words)
        return self.mode.words

    @property
    def compiled_on_this_host(self) -> bool:
        """Compiled where the program runs (not lowered for a named platform, not already known
        to be on a CPU host)."""
        return self.mode != Mode.UNKNOWN and not self.mode.is_interpret and self.lowered_for is None \
            and not self.cpu_host

    @property
    def decided_by(self) -> str:
        return self.evidence[0].note if self.evidence else ""

    def with_evidence(self, *ev: Evidence, caller: str | None = None) -> "Context":
        return replace(self, evidence=tuple(ev) + self.evidence, caller=self.caller if caller is None else caller)


@dataclass(eq=False)
class ContextSet:
    """All the contexts one launch can run in, each with its evidence."""

    contexts: list[Context] = field(default_factory=list)

    def add(self, c: Context) -> None:
        for old in self.contexts:
            if old.mode == c.mode and old.inline_mgpu == c.inline_mgpu and old.mode_line == c.mode_line \
                    and old.certain == c.certain and _same_kernels(old.kernels, c.kernels):
                return
        self.contexts.append(c)


def _same_kernels(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
