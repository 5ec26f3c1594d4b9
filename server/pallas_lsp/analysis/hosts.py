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

from . import api
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


def host_test(node: ast.expr, ev: Evaluator, scope, order=None) -> str | None:
    """``"cpu"`` for ``jax.default_backend() == "cpu"`` and its spellings (true exactly on CPU
    hosts), ``"accelerator"`` for the inverse (``!= "cpu"``, ``== "tpu"``), through a name bound
    to such a test (``ON_CPU = jax.default_backend() == "cpu"``); else None."""
    for _ in range(4):
        if not isinstance(node, ast.Name):
            break
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or not isinstance(b.node, ast.Compare):
            return None
        node, scope, order = b.node, b.scope if getattr(b, "scope", None) is not None else scope, None
    if cpu_host_test(node, ev, scope, order):
        return "cpu"
    if cpu_host_test(node, ev, scope, order, inverse=True):
        return "accelerator"
    return None


def cpu_host_test(node: ast.expr, ev: Evaluator, scope, order=None, inverse: bool = False) -> bool:
    """``jax.default_backend() == "cpu"`` and its spellings: interpret exactly on CPU hosts
    (``inverse``: exactly off them)."""
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return False
    op = node.ops[0]
    left, right = node.left, node.comparators[0]
    for a, b in ((left, right), (right, left)):
        c = ev.const(b, scope, order)
        if not isinstance(c, str):
            continue
        is_backend = False
        if isinstance(a, ast.Call):
            is_backend = ev.ext_name(ev.value(a.func, scope, order)) == api.DEFAULT_BACKEND
        elif isinstance(a, ast.Attribute) and a.attr == "platform":
            is_backend = True
        if not is_backend:
            continue
        on_cpu = (isinstance(op, ast.Eq) and c == "cpu") or (isinstance(op, ast.NotEq) and c in ("gpu", "tpu", "cuda"))
        off_cpu = (isinstance(op, ast.NotEq) and c == "cpu") or (isinstance(op, ast.Eq) and c in ("gpu", "tpu", "cuda"))
        if (off_cpu if inverse else on_cpu):
            return True
    return False


# jax's test utilities (``from jax._src import test_util as jtu``): which platform a test runs on.
TEST_DEVICE_MATCHES = "jax._src.test_util.test_device_matches"
DEVICE_UNDER_TEST = "jax._src.test_util.device_under_test"
SKIP_ON_DEVICES = "jax._src.test_util.skip_on_devices"
RUN_ON_DEVICES = "jax._src.test_util.run_on_devices"
# jax's own Pallas test bases (jax/_src/pallas/pallas_test_util.py): their setUp skips a test
# whose class leaves ``INTERPRET`` false on a CPU host ("On CPU the test works only in
# interpret mode", "Test requires TPUs").
COMPILED_SKIPPED_ON_CPU_BASES = frozenset(
    "jax._src.pallas.pallas_test_util." + n for n in ("PallasTest", "PallasTPUTest"))
# Predicates of jax's test utilities that are False off their accelerator (each first asks
# device_under_test() or the backend's platform version).
FALSE_ON_CPU = frozenset("jax._src.test_util." + n for n in (
    "is_device_tpu", "is_device_tpu_at_least", "is_device_cuda", "is_device_rocm", "is_device_oneapi",
    "is_cuda_compute_capability_at_least", "is_cuda_compute_capability_equal"))


def truth_on_cpu_host(node: ast.expr, ev: Evaluator, scope, order=None, depth: int = 0) -> bool | None:
    """A condition's value on a CPU-only host, where the code's own words say it: a host test
    (``jax.default_backend() == "cpu"``, ``jax.devices()[0].platform == "gpu"``,
    ``jtu.device_under_test() != "cpu"``), ``jtu.test_device_matches(["tpu"])``, ``any(...)`` or
    ``all(...)`` of a host test over the devices, and names bound to these; None when it
    cannot be told."""
    if depth > 4:
        return None
    if isinstance(node, ast.Name):
        b = ev.lookup(node.id, scope, order)
        if b is None or b.kind != "assign" or b.node is None:
            return None
        return truth_on_cpu_host(b.node, ev, b.scope if getattr(b, "scope", None) is not None else scope, None,
                                 depth + 1)
    if isinstance(node, ast.Compare):
        host = host_test(node, ev, scope, order)
        return host == "cpu" if host is not None else _under_test(node, ev, scope, order)
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Name) and node.func.id in ("any", "all") and len(node.args) == 1 \
            and isinstance(node.args[0], (ast.GeneratorExp, ast.ListComp)):
        # (Every device of a CPU-only host is a CPU: any() and all() of a host test agree.)
        return truth_on_cpu_host(node.args[0].elt, ev, scope, order, depth + 1)
    name = ev.ext_name(ev.value(node.func, scope, order))
    if name == TEST_DEVICE_MATCHES and node.args:
        platforms = platform_names(node.args[0], ev, scope, order)
        return None if platforms is None else "cpu" in platforms
    if name in FALSE_ON_CPU:
        return False
    return None


def platform_names(node: ast.expr, ev: Evaluator, scope, order=None) -> tuple[str, ...] | None:
    """``["tpu", "gpu"]`` or ``"cpu"`` as written in a test utility's argument; None if unknown."""
    items = node.elts if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else [node]
    out = []
    for item in items:
        c = ev.const(item, scope, order)
        if not isinstance(c, str):
            return None
        out.append(c.lower())
    return tuple(out)


def _under_test(node: ast.Compare, ev: Evaluator, scope, order) -> bool | None:
    """``jtu.device_under_test() == "cpu"`` (or ``!=``, or another platform) on a CPU host."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        return None
    for a, b in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
        if isinstance(a, ast.Call) and ev.ext_name(ev.value(a.func, scope, order)) == DEVICE_UNDER_TEST:
            c = ev.const(b, scope, order)
            if isinstance(c, str):
                return (c.lower() == "cpu") == isinstance(node.ops[0], ast.Eq)
    return None


__all__ = ["cpu_host_test", "find_cpu_pins", "host_test", "is_cpu_device", "pins_cpu", "platform_names",
           "truth_on_cpu_host"]
