"""Detection sections: how a record says where its error happens, as data.

A record may carry ``"detection": {...}`` (records the project writes, records a user adds with
``--records`` / ``records = [...]``); the shipped seed records stay byte-identical, so theirs
would live beside them, in ``detection/<slug>.json`` (``{"slug": ..., "detection": {...}}``).
``pallas_lsp.rules.data`` turns each section into a rule. The schema (docs/rules.md has a
worked example)::

    {
      "code": "PAL150", "name": "copy-without-barrier-gpu-interpret",   # required
      "summary": "...",                                                  # default: the error message
      "construct": {"call": "<public API name>" | [...],                 # a call reached from the kernel
                    "label": "plgpu.copy_gmem_to_smem",                  # how messages name it
                    "where": [<condition>, ...]}                         # all must hold
                 | {"launch": "<launch API name>" | [...], "where": [...]},  # the launch itself
      "modes": ["interpret" | "tpu-interpret" | "gpu-interpret" | "mosaic-gpu" | "triton" | "tpu"
                | "compiled" | "cuda-lowering" | "cpu-host" | "setter-missed", ...],  # required
      "launchedBy": ["<launch API name>", ...],                           # only kernels launched so
      "unlessInterpretParams": {"<field>": <literal>},                     # quiet when the params say so
      "loweredFor": ["cuda", ...],                                         # only explicit lowerings for these
      "loweringSemantics": ["warpgroup" | "lane"],                         # Mosaic GPU's, as the code says
      "quietWhenLaunch": [<condition>, ...],                               # an earlier error of the launch
      "transformedBy": ["differentiate" | "reverse" | "batch" | "jax.jacfwd", ...],  # only launches transformed so
      "underline": "construct" | "transform" | {"argument": <argument>}
                   | {"condition": <i>[, "argument": <argument>]},
      "error": "<template>",      # what JAX raises; default "{errorClass}: {errorMessage}"
      "headline": "<template>",   # default "`{label}` cannot run in {context}"
      "fixes": [{"title": "...", "safe": true|false, "unlessTransformedBy": [...], "unlessKernelCalls": [<API>, ...],
                 "setKeyword": {"name": "...", "value": "<code>"}        # on the construct's call
                 | "setLaunchKeyword": {"name": "...", "value": "<code>"}  # on the launch's call
                 | "removeKeyword": "<name>"
                 | "replaceCallee": "<code>"          # what the call underline.condition found calls
                 | "replaceCall": "<code>"            # the construct's call, {arg:0} / {arg:mask} its arguments
                 | "setInterpretParam": {"name": "...", "value": "<code>"}
                 | "setCompilerParam": {"name": "...", "value": "<code>", "params": "<code>"}
                 | "addScratch": {"value": "<code>", "name": "<parameter>", "replaceCall": "<code>"}
                 | "transposeIntoScratch": {"name": "{src}_t"}
                 | "reduceInScratch": {"name": "{src}_acc", "barrier": "{src}_barrier"}
                 | "makeGridStatic": true | "extendContext": true | "buildInContext": true
                 | "interpretOnCpuHosts": true | "stopGradientAtInputs": true
                 | "im2colRowsOutside": true}],
      # <code> may name modules as {jax.experimental.pallas.tpu}: written in the module's own
      # name for it, imported where it is not; "when": [<condition>, ...] offers the fix only
      # where those hold on the construct's call, "whenTransformedBy": [...] only for a launch
      # those transformations reach; "onUnderlined": true edits the call underline.condition found
      "also": [{"code": ..., "name": ..., <any field above but "also">}, ...]   # more constructs
    }

A condition names an argument (``{"position": 2, "keyword": "barrier"}``: either way of
passing it) and one test: ``"missing": true`` (not passed, or ``None``), ``"present": true``
(passed a value that is surely not ``None``: a literal, a tuple or list, an API or a call of
one, a comparison or arithmetic; a parameter or other value the analysis cannot tell does
not count), ``"passed": true`` (passed, and not the literal ``None``: for an argument that can
only be a Ref or a value, such as a barrier, where a name the analysis cannot follow is still
not ``None``), ``"truthy": true`` / ``"falsy": true`` (passed, and surely true / false the way
JAX's ``if value:`` sees it: a literal, or a literal tuple, list or dict by its length;
``falsy`` includes ``None``), ``"nonEmptyAxes": true`` (an axis-names argument such as
``collective_axes`` that JAX surely turns into a non-empty tuple: ``if not isinstance(axes,
tuple): axes = (axes,)``, so any literal that is not a tuple, ``None`` and ``""`` included, or a
literal tuple with items; a list, which makes another error, does not count), ``"nonZero": true`` (a literal number other than 0, or a literal
tuple or list of numbers with one that is not 0: ``pl.Element(n, (1, 1))``'s padding),
``"movingIndexMap": true`` (a lambda or def, written there or bound to a name, that returns an
index which is surely not the literal 0 when traced: one of its own parameters, or a number
other than 0; ``lambda i: (i, 0)``), ``"transposed": true`` (a Ref view made by ``.T`` or ``.transpose(...)``,
written there or bound to a name, indexed or not), ``"equals": <literal>``, ``"notIn": [<literal>, ...]``,
``"greaterThan": <int>``, ``"api": [<name>, ...]`` (it is that API, or a call of it, seen
through ``.at[...]`` and indexing), or ``"contains": {"api": [...], "where": [...]}`` (a literal
list or tuple holding a call of that API; ``where`` is tested on that call), or ``"anyLeaf":
{"api": [...], "where": [...]}`` (the argument is such a call, or a literal list, tuple or dict
holds one at any depth: a pytree of BlockSpecs). ``"api"`` may have
a ``"where"`` too, tested on the call the argument is. Templates may use ``{errorClass}``,
``{errorMessage}``, ``{label}``, ``{context}``, ``{argument}`` (the underlined argument's code)
and ``{value}`` (its literal value); ``{api}`` is the short name of the API the construct's call is
(``jnp.cumsum``), for a construct that names several.

Additions for the wave-2 kinds (all optional):

* The tests ``passed``, ``truthy``, ``falsy``, ``nonZero``, ``movingIndexMap``, ``transposed``
  and ``anyLeaf`` above, and ``present`` meaning *surely not None* (it counted any value the
  analysis could not tell); a helper's parameter is read as the call that reaches it from the
  kernel passes it (``ping(sem, 0)`` for ``def ping(sem, core)``); the ``{api}`` placeholder.
* ``"wholeArray": true | false`` on ``in_specs`` / ``out_specs`` (of the launch or of its grid
  spec): true when every BlockSpec there surely covers its whole array (JAX's
  ``has_trivial_window``: the block is the array's shape, known from the operands the launch is
  applied to or from ``out_shape``, and the index map returns literal zeros; a missing
  argument is whole arrays), false when one surely does not (the block differs from the
  array's known shape; the witness is that BlockSpec, for ``underline.condition``).
* On a ``launch`` construct, ``in_specs``, ``out_specs`` and ``scratch_shapes`` the launch does not
  pass are read from its ``grid_spec=`` call
  (``pl.GridSpec`` / ``pltpu.PrefetchScalarGridSpec``, by keyword or position), as JAX does.
* ``"argument": {"rest": <n>}`` (with a ``contains`` test only): the positional arguments from
  index ``n`` on and every keyword argument's value, seen as one list
  (``pl.run_scoped(body, *types, **kw_types)``: ``{"rest": 1}``).
* ``"loweredFor": ["cuda", ...]``: only contexts compiled by an explicit lowering or export
  for one of these platforms (``.lower(lowering_platforms=("cuda",))``,
  ``jax.export(..., platforms=["cuda"])``), and in one of ``modes``: ``"modes":
  ["mosaic-gpu"], "loweredFor": ["cuda"]`` is a Mosaic GPU kernel lowered for CUDA. (The
  ``"cuda-lowering"`` mode, by contrast, is any kernel lowered for CUDA.)
* The ``"cpu-host"`` mode: a compiled launch the code says runs on a CPU host (the CPU platform
  pinned, an inverted ``jax.default_backend()`` test, a lowering for ``"cpu"``;
  analysis/hosts.py); ``"setter-missed"``: one compiled because a ``force_``/``set_``
  interpret-mode call, which is how kernels are debugged on a CPU, misses it or one of its
  calls. No other mode matches such a context: there the launch fails before any backend's
  own error.
* ``"underline": "host"`` (with the ``"cpu-host"`` mode): the line that is itself the mistake,
  where one is (a ``with force_...()`` that misses the launch, a call made outside it), else
  the construct. The placeholder ``{decidedBy}`` is what decided the context, in words.
* ``"loweringSemantics": ["warpgroup" | "lane", ...]``: only Mosaic GPU kernels whose lowering
  semantics the code surely says: ``plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.X)``,
  or Warpgroup (the default) when the launch has no compiler params or they do not set it.
  Compiler params the analysis cannot see keep the rule quiet.
* ``"quietWhenLaunch": [<condition>, ...]``: conditions on the launch call (its keywords read
  through wrappers and partials); when any of them holds, the rule says nothing. For an error
  JAX raises only if an earlier check of the launch passed (the GPU interpreter asserts a
  pallas_call's BlockSpecs are trivial before it interprets the body).
* ``"underline": {"condition": <i>}``: the call the ``i``-th ``construct.where`` condition
  found (its ``api`` test: the call the argument is; its ``contains`` test: the item of the
  list), wherever that call is written (``spec = pltpu.PrefetchScalarGridSpec(...)`` a few
  lines up); ``{"condition": <i>, "argument": {...}}``: that call's argument.
* ``"transformedBy": [<kind or API>, ...]`` (a ``launch`` construct only): the rule is about
  what is done *to* the launch, and is asked once for each transformation of these kinds, or
  named here, that reaches it: ``jax.grad``, ``jax.value_and_grad``, ``jax.jvp``, ``jax.vjp``,
  ``jax.linearize``, ``jax.jacfwd``, ``jax.jacrev``, ``jax.hessian`` "differentiate" (all but
  ``jax.jvp`` and ``jax.jacfwd`` in reverse mode: "reverse"); ``jax.vmap`` is "batch"
  (analysis/transforms.py says how a transformation reaches a launch, and what ends the
  chain). ``"underline": "transform"`` underlines that transformation, and the
  ``{transform}`` placeholder is its name (``jax.grad``). The launch is shown as related.
* A fix's ``"unlessTransformedBy": [<kind or API>, ...]``: the fix is not offered for a
  transformation of these kinds (``interpret=True`` cures the GPU interpreter's JVP error, but
  under ``jax.grad`` the launch then meets pallas_call's reverse-mode error).
* The test ``"dynamicEntry": true``: the argument (a grid) is, or is a literal tuple or list
  with, an entry JAX surely does not see as a Python int: a ``jnp`` value (``jnp.int32(n)``), a
  NumPy scalar, a traced ``lax`` value, or an argument of a function ``jax.jit`` traces (not
  in its static arguments).
* ``"also": [{...}, ...]``: more constructs that raise the same error (a call in the kernel
  and a launch option that binds the same primitive, for instance). Each is a detection
  section of its own with its own ``code`` and ``name`` (and usually ``construct``,
  ``underline``, ``fixes``); every field it leaves out is the parent's, except that an entry
  with its own ``construct`` does not inherit ``underline`` and ``fixes`` (they are about the
  parent's construct). Each becomes a rule
  tied to the same record. An ``also`` entry has no ``also`` of its own.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any

MODES = ("interpret", "tpu-interpret", "gpu-interpret", "mosaic-gpu", "triton", "tpu", "compiled", "cuda-lowering",
         "cpu-host", "setter-missed")
TESTS = ("missing", "present", "passed", "truthy", "falsy", "nonEmptyAxes", "transposed", "nonZero", "movingIndexMap",
         "dynamicEntry", "wholeArray", "equals", "notIn", "greaterThan", "api", "contains", "anyLeaf")
TRANSFORM_KINDS = ("differentiate", "reverse", "batch", "shard")
# The transformation APIs a detection may name (analysis/transforms.py's TRANSFORM_APIS).
TRANSFORM_APIS = ("jax.grad", "jax.value_and_grad", "jax.jvp", "jax.vjp", "jax.linearize", "jax.jacfwd",
                  "jax.jacrev", "jax.hessian", "jax.vmap", "jax.shard_map",
                  "jax.experimental.shard_map.shard_map")
PLATFORMS = ("cuda", "rocm", "tpu", "cpu")
SEMANTICS = ("warpgroup", "lane")
MAX_ALSO = 8
PLACEHOLDERS = {"errorClass", "errorMessage", "label", "context", "argument", "value", "api", "transform",
                "decidedBy"}
# setKeyword: a keyword of the construct's call; setLaunchKeyword: of the launch it is in (for a
# call construct, the pallas_call or kernel call itself); replaceCallee: what the underlined
# call calls (`plgpu.SMEM(...)` -> `pltpu.VMEM(...)`); setInterpretParam: a field of the
# interpret params. Values may name modules as `{jax.experimental.pallas.tpu}`: the edit uses
# the module's own name for it (and imports it where it is not imported). setCompilerParam: a
# field of the launch's compiler params call, or (no params given) `compiler_params=<params>(...)`.
# addScratch: one more kernel scratch buffer (`value`, appended to the launch's scratch list),
# passed to the kernel as a new last parameter `name`, and the construct's call replaced by
# `replaceCall` (which names the buffer by `name`): a barrier for a copy that had none.
# Ops done in Python, for what a template cannot say:
# * transposeIntoScratch / reduceInScratch (rules/scratch_fixes.py): a TMA store to a transposed
#   view, or reducing into GMEM, done in a new SMEM buffer first ("{src}" in a name: the source
#   buffer's name);
# * makeGridStatic: true (rules/dynamic_grid_gpu_interpret.py): the launch's first grid entry
#   that is not a Python int made one (static_argnames of the jax.jit tracing it, or
#   jnp.int32(n) -> n); "{what}" in the title says which edit;
# * extendContext: true (rules/context_fixes.py): the force_* block a launch's read escapes,
#   extended over the statements right after it that hold the reads;
# * buildInContext: true (rules/context_fixes.py): a launch read when built, bound to a name
#   before a function's force_* block that calls it: a copy of the build as the block's first
#   statement ("{name}" in the title: the name);
# * interpretOnCpuHosts: true (rules/context_fixes.py): the falsy interpret setting that
#   decides a CPU-host launch (a default, a constant, an inverted host test) written as
#   ``jax.default_backend() == "cpu"``;
# * stopGradientAtInputs: true (rules/transform_fixes.py): each argument of the built
#   kernel's one application in the module wrapped in ``jax.lax.stop_gradient``;
# * im2colRowsOutside: true (rules/im2col_fix.py): a copy from a ``plgpu.im2col_ref`` view
#   made to read rows built outside the kernel (a new input; "{name}" in the title: its name).
FIX_OPS = ("setKeyword", "setLaunchKeyword", "removeKeyword", "setInterpretParam", "setCompilerParam",
           "replaceCallee", "replaceCall", "addScratch", "transposeIntoScratch", "reduceInScratch", "makeGridStatic",
           "extendContext", "buildInContext", "interpretOnCpuHosts", "stopGradientAtInputs",
           "im2colRowsOutside")
# The ops written ``"<op>": true``: the edit is Python's (the file named above), no value to give.
_FLAG_OPS = ("makeGridStatic", "extendContext", "buildInContext", "interpretOnCpuHosts", "stopGradientAtInputs",
             "im2colRowsOutside")
# In a replaceCall template, {arg:0} / {arg:mask} / {arg:2|predicate} stand for the code of the
# construct's call's argument at that position or keyword (the fix is not offered when it is
# not passed), and {callWithout:reduce} for the call as written less that argument. A template
# that is a statement (`ref[...] = v`, a decorated def) replaces a call that is a whole
# statement, its later lines indented as that statement is.
# {call:2|barrier=bar} is the call with that argument passed as `barrier=bar` instead.
ARG_PLACEHOLDER = re.compile(r"\{(arg|callWithout|call):(\d+|[A-Za-z_]\w*)(?:\|([A-Za-z_]\w*))?(?:=([A-Za-z_]\w*))?\}")
MAX_TEMPLATE_LINES = 8
_CODE_RE = re.compile(r"^[A-Z]{2,5}[0-9]{3}$")
_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{1,63}$")
_API_RE = re.compile(r"^@?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$")
_IDENT_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_CONDITIONS = 16
MAX_DEPTH = 4
MAX_TEXT = 2000


@dataclass(frozen=True)
class ArgRef:
    position: int | None = None
    keyword: str | None = None
    rest: int | None = None  # the positional arguments from this index on, and every keyword's value


    @property
    def words(self) -> str:
        if self.rest is not None:
            return f"the arguments from {self.rest + 1} on"
        if self.keyword and self.position is not None:
            return f"`{self.keyword}=` (argument {self.position + 1})"
        return f"`{self.keyword}=`" if self.keyword else f"argument {(self.position or 0) + 1}"


@dataclass(frozen=True)
class Condition:
    argument: ArgRef
    test: str  # one of TESTS
    value: Any = None  # the literal, list, int or API names
    where: tuple["Condition", ...] = ()  # for "api"/"contains": conditions on the call found


@dataclass(frozen=True)
class FixSpec:
    title: str
    op: str  # one of FIX_OPS
    name: str
    value: str = ""  # Python code
    safe: bool = False
    # Not offered under these transformations (kinds or APIs): the edit would only meet the
    # next error there (interpret=True under jax.grad, for instance).
    unless_transformed_by: tuple[str, ...] = ()
    # Offered only where these conditions on the construct's call hold: the edit runs clean
    # there and not elsewhere (TPU interpret params run a signal to core 0 of their one core).
    when: tuple["Condition", ...] = ()
    # Offered only for a launch these transformations (kinds or APIs) reach: TPU interpret
    # params run a remote signal under jax.shard_map, not outside it.
    when_transformed_by: tuple[str, ...] = ()
    # The edit is on the call the underline condition found (a keyword of ``plgpu.ClusterBarrier(...)``
    # in a run_scoped's arguments), not on the construct's call.
    on_underlined: bool = False
    # Not offered where the kernel reaches another call of these APIs (a wait made to consume
    # its signal would leave a later wait on it blocked for good).
    unless_kernel_calls: tuple[str, ...] = ()
    params: str = ""  # setCompilerParam: the params class to build when the launch has none
    template: str = ""  # addScratch: what replaces the construct's call


@dataclass(frozen=True)
class Detection:
    code: str
    name: str
    construct: str  # "call" | "launch"
    apis: tuple[str, ...]
    modes: tuple[str, ...]
    summary: str = ""
    label: str = ""
    where: tuple[Condition, ...] = ()
    launched_by: tuple[str, ...] = ()
    unless_params: tuple[tuple[str, Any], ...] = ()
    underline: ArgRef | None = None
    # Underline the call the construct.where condition of this index found (then, with
    # ``underline``, that call's argument).
    underline_condition: int | None = None
    lowered_for: tuple[str, ...] = ()
    lowering_semantics: tuple[str, ...] = ()  # Mosaic GPU's, as the code surely says
    quiet_when_launch: tuple[Condition, ...] = ()  # any holding on the launch call: no report
    # Only launches reached by a transformation of these kinds ("differentiate", "batch").
    transformed_by: tuple[str, ...] = ()
    underline_transform: bool = False  # underline the transformation (``"underline": "transform"``)
    underline_host: bool = False  # on a CPU host: the line that is the mistake (``"underline": "host"``)
    error: str = "{errorClass}: {errorMessage}"
    headline: str = "`{label}` cannot run in {context}"
    fixes: tuple[FixSpec, ...] = ()
    also: tuple["Detection", ...] = ()  # more constructs raising the same error (own code/name)
    source: str = field(default="", compare=False)  # "file: record[0].detection", for messages


class DetectionError(ValueError):
    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


def _is_literal(v: Any) -> bool:
    return v is None or isinstance(v, (bool, int, float, str))


def _str(obj: dict, key: str, where: str, *, required: bool = False, pattern: re.Pattern | None = None) -> str:
    v = obj.get(key)
    if v is None:
        if required:
            raise DetectionError(f"{where}.{key}", "required field is missing")
        return ""
    if not isinstance(v, str) or not v.strip() or len(v) > MAX_TEXT:
        raise DetectionError(f"{where}.{key}", f"must be a non-empty string of at most {MAX_TEXT} characters")
    if pattern is not None and not pattern.match(v):
        raise DetectionError(f"{where}.{key}", f"{v!r} does not have the expected form ({pattern.pattern})")
    return v


def _apis(v: Any, where: str) -> tuple[str, ...]:
    items = [v] if isinstance(v, str) else v
    if not isinstance(items, list) or not items or len(items) > 32:
        raise DetectionError(where, "must be an API name or a list of 1 to 32 of them")
    for i, a in enumerate(items):
        if not isinstance(a, str) or not _API_RE.match(a):
            raise DetectionError(f"{where}[{i}]" if isinstance(v, list) else where,
                                 f"{a!r} is not a qualified public name such as "
                                 "'jax.experimental.pallas.mosaic_gpu.copy_gmem_to_smem'")
    return tuple(items)


def _argref(v: Any, where: str) -> ArgRef:
    if not isinstance(v, dict) or not v:
        raise DetectionError(where, "must be an object with `position` and/or `keyword` (or `rest`)")
    unknown = set(v) - {"position", "keyword", "rest"}
    if unknown:
        raise DetectionError(f"{where}.{sorted(unknown)[0]}", "unknown field (expected `position`, `keyword` or `rest`)")
    if "rest" in v:
        rest = v["rest"]
        if set(v) != {"rest"}:
            raise DetectionError(where, "`rest` stands alone (no `position` or `keyword` beside it)")
        if not isinstance(rest, int) or isinstance(rest, bool) or not 0 <= rest < 64:
            raise DetectionError(f"{where}.rest", "must be an integer from 0 to 63")
        return ArgRef(rest=rest)
    pos = v.get("position")
    kw = v.get("keyword")
    if pos is not None and (not isinstance(pos, int) or isinstance(pos, bool) or not 0 <= pos < 64):
        raise DetectionError(f"{where}.position", "must be an integer from 0 to 63")
    if kw is not None and (not isinstance(kw, str) or not _IDENT_RE.match(kw)):
        raise DetectionError(f"{where}.keyword", "must be a Python identifier")
    return ArgRef(pos, kw)


def _conditions(v: Any, where: str, depth: int = 0) -> tuple[Condition, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or len(v) > MAX_CONDITIONS:
        raise DetectionError(where, f"must be a list of at most {MAX_CONDITIONS} conditions")
    if depth > MAX_DEPTH:
        raise DetectionError(where, f"conditions nested more than {MAX_DEPTH} deep")
    return tuple(_condition(c, f"{where}[{i}]", depth) for i, c in enumerate(v))


def _condition(c: Any, where: str, depth: int) -> Condition:
    if not isinstance(c, dict):
        raise DetectionError(where, "must be an object")
    arg = _argref(c.get("argument"), f"{where}.argument")
    if arg.rest is not None and "contains" not in c:
        raise DetectionError(f"{where}.argument.rest", "`rest` (the arguments as a list) takes a `contains` test")
    tests = [t for t in TESTS if t in c]
    unknown = set(c) - set(TESTS) - {"argument", "where"}
    if unknown:
        raise DetectionError(f"{where}.{sorted(unknown)[0]}", f"unknown field (tests: {', '.join(TESTS)})")
    if len(tests) != 1:
        raise DetectionError(where, f"needs exactly one test of: {', '.join(TESTS)}")
    test = tests[0]
    value = c[test]
    sub: tuple[Condition, ...] = ()
    if test in ("missing", "present", "passed", "truthy", "falsy", "nonEmptyAxes", "transposed", "nonZero",
                "movingIndexMap", "dynamicEntry"):
        if value is not True:
            raise DetectionError(f"{where}.{test}", "must be true")
    elif test == "wholeArray":
        if not isinstance(value, bool):
            raise DetectionError(f"{where}.wholeArray", "must be true or false")
        if arg.keyword not in ("in_specs", "out_specs"):
            raise DetectionError(f"{where}.argument", "a `wholeArray` test is about `in_specs` or `out_specs`")
    elif test == "equals":
        if not _is_literal(value):
            raise DetectionError(f"{where}.equals", "must be a literal (string, number, boolean or null)")
    elif test == "notIn":
        if not isinstance(value, list) or not value or not all(_is_literal(x) for x in value):
            raise DetectionError(f"{where}.notIn", "must be a non-empty list of literals")
        value = tuple(value)
    elif test == "greaterThan":
        if not isinstance(value, int) or isinstance(value, bool):
            raise DetectionError(f"{where}.greaterThan", "must be an integer")
    elif test == "api":
        value = _apis(value, f"{where}.api")
    elif test in ("contains", "anyLeaf"):
        if not isinstance(value, dict) or "api" not in value or set(value) - {"api", "where"}:
            raise DetectionError(f"{where}.{test}", "must be an object with `api` (and optionally `where`)")
        sub = _conditions(value.get("where"), f"{where}.{test}.where", depth + 1)
        value = _apis(value["api"], f"{where}.{test}.api")
    if "where" in c:
        if test != "api":
            raise DetectionError(f"{where}.where", "only an `api` test can have `where`")
        sub = _conditions(c["where"], f"{where}.where", depth + 1)
    return Condition(arg, test, value, sub)


def _template(obj: dict, key: str, where: str, default: str) -> str:
    v = obj.get(key)
    if v is None:
        return default
    text = _str(obj, key, where)
    for m in re.finditer(r"\{([^{}]*)\}", text):
        if m.group(1) not in PLACEHOLDERS:
            raise DetectionError(f"{where}.{key}", f"unknown placeholder {{{m.group(1)}}} "
                                 f"(known: {', '.join('{' + p + '}' for p in sorted(PLACEHOLDERS))})")
    return text


def _transforms(v: Any, where: str) -> tuple[str, ...]:
    """A list of transformation kinds or APIs (``transformedBy``, a fix's ``unlessTransformedBy``)."""
    if not isinstance(v, list) or not v or any(x not in TRANSFORM_KINDS + TRANSFORM_APIS for x in v):
        raise DetectionError(where, f"must be a non-empty list of kinds ({', '.join(TRANSFORM_KINDS)}) "
                                    f"or transformation APIs ({', '.join(TRANSFORM_APIS)})")
    return tuple(v)


def _fixes(v: Any, where: str) -> tuple[FixSpec, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or len(v) > 8:
        raise DetectionError(where, "must be a list of at most 8 fixes")
    out = []
    for i, f in enumerate(v):
        w = f"{where}[{i}]"
        if not isinstance(f, dict):
            raise DetectionError(w, "must be an object")
        title = _str(f, "title", w, required=True)
        ops = [o for o in FIX_OPS if o in f]
        unknown = set(f) - set(FIX_OPS) - {"title", "safe", "unlessTransformedBy", "whenTransformedBy", "when",
                                           "onUnderlined", "unlessKernelCalls"}
        if unknown:
            raise DetectionError(f"{w}.{sorted(unknown)[0]}", f"unknown field (edits: {', '.join(FIX_OPS)})")
        if len(ops) != 1:
            raise DetectionError(w, f"needs exactly one edit of: {', '.join(FIX_OPS)}")
        safe = f.get("safe", False)
        if not isinstance(safe, bool):
            raise DetectionError(f"{w}.safe", "must be true or false")
        unless = _transforms(f["unlessTransformedBy"], f"{w}.unlessTransformedBy") if "unlessTransformedBy" in f else ()
        when = _conditions(f["when"], f"{w}.when") if "when" in f else ()
        when_by = _transforms(f["whenTransformedBy"], f"{w}.whenTransformedBy") if "whenTransformedBy" in f else ()
        on_underlined = f.get("onUnderlined", False)
        if not isinstance(on_underlined, bool) or (on_underlined and ops[0] not in ("setKeyword", "removeKeyword")):
            raise DetectionError(f"{w}.onUnderlined", "must be true or false, with setKeyword or removeKeyword")
        calls = f.get("unlessKernelCalls", [])
        if not isinstance(calls, list) or not all(isinstance(a, str) and _API_RE.match(a) for a in calls):
            raise DetectionError(f"{w}.unlessKernelCalls", "must be a list of public API names")
        common = dict(safe=safe, unless_transformed_by=unless, when=when, when_transformed_by=when_by,
                      on_underlined=on_underlined, unless_kernel_calls=tuple(calls))
        op = ops[0]
        body = f[op]
        if op == "removeKeyword":
            if not isinstance(body, str) or not _IDENT_RE.match(body):
                raise DetectionError(f"{w}.removeKeyword", "must be a keyword name")
            out.append(FixSpec(title, op, body, "", **common))
            continue
        if op in ("replaceCallee", "replaceCall"):
            out.append(FixSpec(title, op, "", _fix_value(body, f"{w}.{op}", lines=MAX_TEMPLATE_LINES
                                                         if op == "replaceCall" else 1), **common))
            continue
        if op in _FLAG_OPS:
            if body is not True:
                raise DetectionError(f"{w}.{op}", "must be true")
            out.append(FixSpec(title, op, "", **common))
            continue
        if op in ("transposeIntoScratch", "reduceInScratch"):
            fields = {"name"} if op == "transposeIntoScratch" else {"name", "barrier"}
            if not isinstance(body, dict) or set(body) != fields:
                raise DetectionError(f"{w}.{op}", f"must be an object with {' and '.join(f'`{x}`' for x in sorted(fields))}")
            for key in sorted(fields):
                if not isinstance(body[key], str) or not _IDENT_RE.match(body[key].replace("{src}", "src")):
                    raise DetectionError(f"{w}.{op}.{key}", "must be a parameter name ({src}: the source buffer's)")
            out.append(FixSpec(title, op, body["name"], body.get("barrier", ""), **common))
            continue
        if op == "addScratch":
            if not isinstance(body, dict) or set(body) != {"name", "value", "replaceCall"}:
                raise DetectionError(f"{w}.{op}", "must be an object with `name`, `value` and `replaceCall`")
            if not isinstance(body["name"], str) or not _IDENT_RE.match(body["name"]):
                raise DetectionError(f"{w}.{op}.name", "must be a parameter name")
            out.append(FixSpec(title, op, body["name"], _fix_value(body["value"], f"{w}.{op}.value"),
                               template=_fix_value(body["replaceCall"], f"{w}.{op}.replaceCall",
                                                   lines=MAX_TEMPLATE_LINES), **common))
            continue
        if op == "setCompilerParam":
            if not isinstance(body, dict) or set(body) != {"name", "value", "params"}:
                raise DetectionError(f"{w}.{op}", "must be an object with `name`, `value` and `params`")
            if not isinstance(body["name"], str) or not _IDENT_RE.match(body["name"]):
                raise DetectionError(f"{w}.{op}.name", "must be a keyword name")
            out.append(FixSpec(title, op, body["name"], _fix_value(body["value"], f"{w}.{op}.value"),
                               params=_fix_value(body["params"], f"{w}.{op}.params"), **common))
            continue
        if not isinstance(body, dict) or set(body) != {"name", "value"}:
            raise DetectionError(f"{w}.{op}", "must be an object with `name` and `value`")
        if not isinstance(body["name"], str) or not _IDENT_RE.match(body["name"]):
            raise DetectionError(f"{w}.{op}.name", "must be a keyword name")
        out.append(FixSpec(title, op, body["name"], _fix_value(body["value"], f"{w}.{op}.value"), **common))
    return tuple(out)


_MODULE_NAME_RE = re.compile(r"\{([A-Za-z_][\w.]*)\}")


def _fix_value(value: Any, where: str, lines: int = 1) -> str:
    """Python code of at most ``lines`` lines (module placeholders allowed), parsed, never run."""
    if not isinstance(value, str) or not value.strip() or len(value) > 200 * lines \
            or value.count("\n") >= lines:
        what = "one line" if lines == 1 else f"at most {lines} lines"
        raise DetectionError(where, f"must be {what} of Python code (at most {200 * lines} characters)")
    for m in ARG_PLACEHOLDER.finditer(value):
        if (m.group(1) == "call") != (m.group(4) is not None) or \
                (m.group(1) == "call" and m.group(3) is None and m.group(2).isdigit()):
            raise DetectionError(where, f"{m.group()}: {{call:K=name}} (K a keyword, or position|keyword) "
                                 "is the only placeholder with `=`")
    try:
        code = ARG_PLACEHOLDER.sub("a", _MODULE_NAME_RE.sub("m", value))
        try:
            compile(code, "<fix value>", "eval", dont_inherit=True)
        except SyntaxError:
            compile(code, "<fix value>", "exec", dont_inherit=True)  # (a statement: `ref[...] = v`)
    except (SyntaxError, ValueError):
        raise DetectionError(where, f"{value!r} is not a Python expression") from None
    return value


def parse_detection(obj: Any, where: str = "detection") -> Detection:
    """A validated detection section; raises :class:`DetectionError` naming the field."""
    if not isinstance(obj, dict):
        raise DetectionError(where, f"expected an object, got {type(obj).__name__}")
    also = obj.get("also")
    parent = _parse_one(obj, where, allow_also=True)
    if also is None:
        return parent
    if not isinstance(also, list) or not also or len(also) > MAX_ALSO:
        raise DetectionError(f"{where}.also", f"must be a list of 1 to {MAX_ALSO} detection sections")
    variants = []
    seen = {parent.code, parent.name}
    inherited = {k: v for k, v in obj.items() if k != "also"}
    for i, entry in enumerate(also):
        w = f"{where}.also[{i}]"
        if not isinstance(entry, dict):
            raise DetectionError(w, f"expected an object, got {type(entry).__name__}")
        if "also" in entry:
            raise DetectionError(f"{w}.also", "an `also` entry has no `also` of its own")
        for key in ("code", "name"):
            if key not in entry:
                raise DetectionError(f"{w}.{key}", "required field is missing (each `also` entry is a rule of its own)")
        base = dict(inherited)
        if "construct" in entry:  # a construct of its own: what to underline and edit is its own too
            base.pop("underline", None)
            base.pop("fixes", None)
        variant = _parse_one({**base, **entry}, w, allow_also=False)
        for key in (variant.code, variant.name):
            if key in seen:
                raise DetectionError(w, f"code/name `{key}` is used twice in this detection section")
            seen.add(key)
        variants.append(variant)
    return dataclasses.replace(parent, also=tuple(variants))


def _parse_one(obj: dict, where: str, *, allow_also: bool) -> Detection:
    known = {"code", "name", "summary", "construct", "modes", "launchedBy", "unlessInterpretParams", "underline",
             "error", "headline", "fixes", "loweredFor", "loweringSemantics", "quietWhenLaunch",
             "transformedBy"} | ({"also"} if allow_also else set())
    unknown = set(obj) - known
    if unknown:
        raise DetectionError(f"{where}.{sorted(unknown)[0]}", f"unknown field (known: {', '.join(sorted(known))})")
    code = _str(obj, "code", where, required=True, pattern=_CODE_RE)
    name = _str(obj, "name", where, required=True, pattern=_NAME_RE)
    summary = _str(obj, "summary", where)
    construct = obj.get("construct")
    cw = f"{where}.construct"
    if not isinstance(construct, dict):
        raise DetectionError(cw, "required: an object with `call` or `launch`")
    kinds = [k for k in ("call", "launch") if k in construct]
    if len(kinds) != 1:
        raise DetectionError(cw, "needs exactly one of `call` and `launch`")
    unknown = set(construct) - {"call", "launch", "label", "where"}
    if unknown:
        raise DetectionError(f"{cw}.{sorted(unknown)[0]}", "unknown field (known: call, launch, label, where)")
    kind = kinds[0]
    apis = _apis(construct[kind], f"{cw}.{kind}")
    label = _str(construct, "label", cw) or _short(apis[0])
    where_ = _conditions(construct.get("where"), f"{cw}.where")
    modes = obj.get("modes")
    if not isinstance(modes, list) or not modes:
        raise DetectionError(f"{where}.modes", f"required: a non-empty list of {', '.join(MODES)}")
    for i, m in enumerate(modes):
        if m not in MODES:
            raise DetectionError(f"{where}.modes[{i}]", f"{m!r} is not a mode ({', '.join(MODES)})")
    launched_by = _apis(obj["launchedBy"], f"{where}.launchedBy") if "launchedBy" in obj else ()
    lowered_for: tuple[str, ...] = ()
    if "loweredFor" in obj:
        lf = obj["loweredFor"]
        if not isinstance(lf, list) or not lf:
            raise DetectionError(f"{where}.loweredFor", f"must be a non-empty list of {', '.join(PLATFORMS)}")
        for i, p in enumerate(lf):
            if p not in PLATFORMS:
                raise DetectionError(f"{where}.loweredFor[{i}]", f"{p!r} is not a platform ({', '.join(PLATFORMS)})")
        lowered_for = tuple(lf)
    quiet = _conditions(obj.get("quietWhenLaunch"), f"{where}.quietWhenLaunch")
    semantics: tuple[str, ...] = ()
    if "loweringSemantics" in obj:
        ls = obj["loweringSemantics"]
        if not isinstance(ls, list) or not ls or any(x not in SEMANTICS for x in ls):
            raise DetectionError(f"{where}.loweringSemantics", f"must be a non-empty list of {', '.join(SEMANTICS)}")
        semantics = tuple(ls)
    unless = obj.get("unlessInterpretParams")
    unless_params: tuple[tuple[str, Any], ...] = ()
    if unless is not None:
        if not isinstance(unless, dict) or not unless:
            raise DetectionError(f"{where}.unlessInterpretParams", "must be an object of field: literal")
        for k, v in unless.items():
            if not _IDENT_RE.match(k) or not _is_literal(v):
                raise DetectionError(f"{where}.unlessInterpretParams.{k}", "must map a field name to a literal")
        unless_params = tuple(unless.items())
    transformed_by: tuple[str, ...] = ()
    if "transformedBy" in obj:
        transformed_by = _transforms(obj["transformedBy"], f"{where}.transformedBy")
        if kind != "launch":
            raise DetectionError(f"{where}.transformedBy", "only a `launch` construct is transformed")
    underline = None
    underline_condition = None
    u = obj.get("underline")
    underline_transform = u == "transform"
    if underline_transform and not transformed_by:
        raise DetectionError(f"{where}.underline", "\"transform\" needs `transformedBy` (the transformation to point at)")
    underline_host = u == "host"
    if u is not None and u not in ("construct", "transform", "host"):
        uw = f"{where}.underline"
        if not isinstance(u, dict) or not u or set(u) - {"argument", "condition"}:
            raise DetectionError(uw, "must be \"construct\", \"transform\", \"host\", {\"argument\": {...}} or "
                                     "{\"condition\": <index>[, \"argument\": {...}]}")
        if "condition" in u:
            ci = u["condition"]
            if not isinstance(ci, int) or isinstance(ci, bool) or not 0 <= ci < len(where_):
                raise DetectionError(f"{uw}.condition", f"must be the index of a construct.where condition "
                                                        f"(0 to {len(where_) - 1})" if where_ else
                                     "construct.where has no conditions to point at")
            if where_[ci].test not in ("api", "contains", "anyLeaf") and \
                    not (where_[ci].test == "wholeArray" and where_[ci].value is False):
                raise DetectionError(f"{uw}.condition", f"condition {ci} is a `{where_[ci].test}` test; only an "
                                                        "`api`, `contains`, `anyLeaf` or `\"wholeArray\": false` test "
                                                        "finds a call to underline")
            underline_condition = ci
        if "argument" in u:
            underline = _argref(u["argument"], f"{uw}.argument")
    fixes = _fixes(obj.get("fixes"), f"{where}.fixes")
    for i, f in enumerate(fixes):
        if (f.op == "replaceCallee" or f.on_underlined) and underline_condition is None:
            field_name = "replaceCallee" if f.op == "replaceCallee" else "onUnderlined"
            raise DetectionError(f"{where}.fixes[{i}].{field_name}",
                                 "needs `underline.condition`: the call it edits is the one that condition finds")
    return Detection(
        code=code, name=name, construct=kind, apis=apis, modes=tuple(modes), summary=summary, label=label,
        where=where_, launched_by=launched_by, unless_params=unless_params, underline=underline,
        underline_condition=underline_condition, lowered_for=lowered_for, lowering_semantics=semantics,
        quiet_when_launch=quiet, transformed_by=transformed_by, underline_transform=underline_transform,
        underline_host=underline_host,
        error=_template(obj, "error", where, Detection.error),
        headline=_template(obj, "headline", where, Detection.headline),
        fixes=fixes)


_SHORT_MODULES = {
    "jax.experimental.pallas.mosaic_gpu.": "plgpu.",
    "jax.experimental.pallas.tpu.": "pltpu.",
    "jax.experimental.pallas.triton.": "plt.",
    "jax.experimental.pallas.": "pl.",
    "jax.numpy.": "jnp.",
    "jax.lax.": "lax.",
}


def _short(name: str) -> str:
    name = name.lstrip("@")
    for long, short in _SHORT_MODULES.items():
        if name.startswith(long):
            return short + name[len(long):]
    return name
