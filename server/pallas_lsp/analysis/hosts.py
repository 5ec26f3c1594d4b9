"""Where a launch runs: the facts by which the code says it runs on a CPU host.

On a CPU host Pallas only interprets: a compiled launch fails when it is lowered
(``_pallas_call_lowering``'s ``cpu_lowering``: "Only interpret mode is supported on CPU
backend."). Real Pallas code is full of compiled launches in files that run on accelerators,
so a launch is taken to run on a CPU host only when the code says so:

* the module pins the CPU platform: ``jax.config.update("jax_platforms", "cpu")`` (or
  ``"jax_platform_name"``), ``os.environ["JAX_PLATFORMS"] = "cpu"``,
  ``os.environ.setdefault("JAX_PLATFORMS", "cpu")``; a list whose first platform is cpu; or
  makes a CPU device the default one, ``jax.config.update("jax_default_device",
  jax.devices("cpu")[0])`` (computations are then placed, and lowered, on the CPU);
* the launch is lowered for ``"cpu"`` (``lowering_platforms=("cpu",)``), found with the other
  explicit lowerings;
* its interpret setting interprets only off CPU hosts (``interpret=jax.default_backend() !=
  "cpu"``), found where the setting is classified;
* a ``force_*``/``set_*_interpret_mode`` call, which is how a kernel is debugged on a CPU,
  misses the launch or one of its calls (launches.py's ``ContextResolver``).
"""
from __future__ import annotations

import ast

from .contexts import Evidence
from .evaluate import Evaluator
from .module import ModuleIndex

PLATFORM_OPTIONS = {"jax_platforms", "jax_platform_name"}
DEFAULT_DEVICE_OPTION = "jax_default_device"
DEVICE_LISTS = {"jax.devices", "jax.local_devices"}
PLATFORM_VARIABLES = {"JAX_PLATFORMS", "JAX_PLATFORM_NAME"}
CONFIG_UPDATE = "jax.config.update"
ENVIRON = "os.environ"


def pins_cpu(value: object) -> bool:
    """``"cpu"`` or ``"cpu,tpu"``: the first platform JAX tries is the CPU."""
    return isinstance(value, str) and value.split(",")[0].strip().lower() == "cpu"


def find_cpu_pins(index: ModuleIndex, ev: Evaluator) -> list[Evidence]:
    """Every place the module pins the CPU platform, in the order of the text."""
    out: list[Evidence] = []
    keys = PLATFORM_OPTIONS | PLATFORM_VARIABLES | {DEFAULT_DEVICE_OPTION}
    for cs in index.calls_to(("update", "setdefault")):
        first = cs.node.args[0] if len(cs.node.args) >= 2 else None
        if not (isinstance(first, ast.Name) or (isinstance(first, ast.Constant) and first.value in keys)):
            continue  # (dict.update and the like: nothing evaluated on the keystroke path)
        order = ev.order_of(cs)
        key = ev.const(first, cs.scope, order)
        if key not in keys:
            continue
        fn = ev.ext_name(ev.value(cs.node.func, cs.scope, order))
        value = ev.const(cs.node.args[1], cs.scope, order)
        if (fn == CONFIG_UPDATE and key in PLATFORM_OPTIONS) or \
                (fn == f"{ENVIRON}.setdefault" and key in PLATFORM_VARIABLES):
            if pins_cpu(value):
                out.append(Evidence(index.span(cs.node, cs.scope), _pinned(index.code_of(cs.node, cs.scope))))
        elif fn == CONFIG_UPDATE and key == DEFAULT_DEVICE_OPTION and \
                is_cpu_device(ev, cs.node.args[1], cs.scope, order):
            out.append(Evidence(index.span(cs.node, cs.scope),
                                f"`{index.code_of(cs.node, cs.scope)}`, which makes a CPU device the default"))
    for _, bp in index.parses:
        if bp.module is None or bp.root is None or "JAX_PLATFORM" not in bp.text:
            continue
        for node in ast.walk(bp.module):
            if not isinstance(node, ast.Assign) or len(node.targets) != 1:
                continue
            target = node.targets[0]
            if not isinstance(target, ast.Subscript):
                continue
            scope = bp.root
            if ev.ext_name(ev.value(target.value, scope)) != ENVIRON:
                continue
            if ev.const(target.slice, scope) in PLATFORM_VARIABLES and pins_cpu(ev.const(node.value, scope)):
                out.append(Evidence(index.span(node, scope), _pinned(index.code_of(node, scope))))
    out.sort(key=lambda e: (e.span.line, e.span.col))
    return out


def _pinned(code: str) -> str:
    return f"`{code}`, which pins the CPU platform"


def is_cpu_device(ev: Evaluator, node: ast.expr, scope, order) -> bool:
    """``jax.devices("cpu")[0]``, ``jax.local_devices(backend="cpu")[1]``: a device of the
    CPU backend, by the code's own words."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.value, ast.Call):
        return False
    call = node.value
    if ev.ext_name(ev.value(call.func, scope, order)) not in DEVICE_LISTS:
        return False
    backend = next((k.value for k in call.keywords if k.arg == "backend"), call.args[0] if call.args else None)
    return backend is not None and pins_cpu(ev.const(backend, scope, order))


__all__ = ["find_cpu_pins", "is_cpu_device", "pins_cpu"]
