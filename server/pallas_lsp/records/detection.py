"""Detection sections: how a record says where its error happens, as data.

A record may carry ``"detection": {...}`` (records the project writes, records a user adds with
``--records`` / ``records = [...]``); the shipped seed records stay byte-identical, so theirs
would live beside them, in ``detection/<slug>.json`` (``{"slug": ..., "detection": {...}}``).
``pallas_lsp.rules.data`` turns each section into a rule.

The vocabulary is registered here, once: the section's fields (``DETECTION_FIELDS``,
``CONSTRUCT_FIELDS``), the modes (``MODE_DOCS``), the template placeholders, each condition test
(``CONDITION_TESTS``: a :class:`ConditionTest` with its parsing, documentation and example) and
each fix op (``FIX_OP_REGISTRY``: a :class:`FixOp`). docs/data-rules.md's reference and
``record.schema.json`` are generated from it (``pallas-lsp dev schema``, records/reference.py);
rules/data.py decides each test and applies each op by the same names.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

MODE_DOCS = {
    "interpret": "`interpret=True`: the generic discharge interpreter",
    "tpu-interpret": "TPU interpret params (`interpret=pltpu.InterpretParams(...)`, `pltpu.force_tpu_interpret_mode`)",
    "gpu-interpret": "GPU interpret params (`interpret=plgpu.InterpretGPUParams(...)`, `force_gpu_interpret_mode`)",
    "mosaic-gpu": "compiled through Mosaic GPU",
    "triton": "compiled through Triton",
    "tpu": "compiled through Mosaic TPU",
    "compiled": "compiled, for any backend",
    "cuda-lowering": "any kernel lowered for CUDA",
    "cpu-host": "compiled on a CPU host, by the code's own facts: the CPU platform pinned, an inverted "
                "`jax.default_backend()` test, a lowering for `\"cpu\"`",
    "setter-missed": "compiled because a `force_`/`set_` interpret-mode call, which is how kernels are debugged "
                     "on a CPU, misses the launch or one of its calls",
}
MODES = tuple(MODE_DOCS)
TRANSFORM_KINDS = ("differentiate", "reverse", "batch", "shard")
# The transformation APIs a detection may name (analysis/transforms.py's TRANSFORM_APIS).
TRANSFORM_APIS = ("jax.grad", "jax.value_and_grad", "jax.jvp", "jax.vjp", "jax.linearize", "jax.jacfwd",
                  "jax.jacrev", "jax.hessian", "jax.vmap", "jax.shard_map",
                  "jax.experimental.shard_map.shard_map")
PLATFORMS = ("cuda", "rocm", "tpu", "cpu")
SEMANTICS = ("warpgroup", "lane")
MAX_ALSO = 8
PLACEHOLDER_DOCS = {
    "errorClass": "the record's `errorClass`",
    "errorMessage": "the record's `errorMessage`",
    "label": "the construct's label",
    "context": "the launch's context in words (`TPU interpret mode`)",
    "argument": "the underlined argument's code",
    "value": "the underlined argument's literal value (its code when it is not a literal)",
    "api": "the short name of the API the construct's call is (`jnp.cumsum`), for a construct that names several",
    "transform": "the transformation's name (`jax.grad`), with `transformedBy`",
    "decidedBy": "what decided the context, in words",
}
PLACEHOLDERS = set(PLACEHOLDER_DOCS)
# The fields of a detection section (parsed in _parse_one) and what each says.
DETECTION_FIELDS = {
    "code": "required: the rule's code (2-5 capitals and 3 digits, `PAL190`); unused by any other rule",
    "name": "required: the rule's kebab-case name; unused by any other rule",
    "summary": "one line for `pallas-lsp rules` (default: the record's message)",
    "construct": "required: what the error is about (below)",
    "modes": "required: the contexts in which it fails (below); no other mode matches a CPU-host context",
    "launchedBy": "launch APIs: only kernels launched by these",
    "unlessInterpretParams": "`{\"<field>\": <literal>}`: quiet when the interpret params set that field to "
                             "that value (`{\"inline_mgpu\": \"ignore\"}`), or when that cannot be told",
    "loweredFor": f"platforms ({', '.join(PLATFORMS)}): only contexts compiled by an explicit lowering or export "
                  "for one of them (`.lower(lowering_platforms=(\"cuda\",))`, "
                  "`jax.export(..., platforms=[\"cuda\"])`), "
                  "and in one of `modes`",
    "loweringSemantics": f"Mosaic GPU's ({', '.join(SEMANTICS)}): only kernels whose lowering semantics the code "
                         "surely says (warpgroup, the default, when the launch's compiler params do not set it); "
                         "compiler params the analysis cannot see keep the rule quiet",
    "quietWhenLaunch": "conditions on the launch call (keywords read through wrappers and partials); when one "
                       "holds, an earlier error of the launch comes first and the rule is quiet",
    "transformedBy": "a `launch` construct only: the rule is about what is done *to* the launch, and is asked "
                     "once per transformation that reaches it of these kinds, `differentiate` (`jax.grad`, "
                     "`jax.jvp`, ... all eight), `reverse` (`jax.grad`, `jax.value_and_grad`, `jax.vjp`, "
                     "`jax.linearize`, `jax.jacrev`, `jax.hessian`), `batch` (`jax.vmap`), `shard` "
                     "(`jax.shard_map`), or these APIs (`\"jax.jacfwd\"`). The chain goes through local "
                     "functions, lambdas, `functools.partial` and `jax.jit`, and up to three modules; it ends "
                     "at a `jax.custom_vjp`/`jax.custom_jvp` function and at a call given only "
                     "`jax.lax.stop_gradient(...)` values",
    "underline": "`\"construct\"` (default); `{\"argument\": {...}}`; `{\"condition\": <i>}`: the call the "
                 "i-th `construct.where` condition found (an `api`, `contains`, `anyLeaf` or "
                 "`\"wholeArray\": false` test), wherever it is written, and with `\"argument\"` that call's "
                 "argument; `\"transform\"`: the transformation (needs `transformedBy`); `\"host\"`: for a "
                 "CPU-host context, the `force_`/`set_` call or the call that is the mistake, where one is",
    "error": "template of what JAX raises (default `{errorClass}: {errorMessage}`)",
    "headline": "template of the message's start (default ``` `{label}` cannot run in {context} ```)",
    "fixes": "up to 8 quick fixes (below)",
    "also": f"1 to {MAX_ALSO} more constructs that raise the same error, each a detection section with its own "
            "`code` and `name`; every field it leaves out is the parent's, except that an entry with its own "
            "`construct` does not inherit `underline` and `fixes`. No `also` of its own",
}
CONSTRUCT_FIELDS = {
    "call": "a call reached from the kernel, of this public API (a qualified name) or of one of a list; "
            "`@API` matches calls of functions a decorator factory made "
            "(`@jax.experimental.pallas.mosaic_gpu.inline_mgpu`)",
    "launch": "the launch itself (`jax.experimental.pallas.pallas_call`, `...mosaic_gpu.kernel`, ...), or one "
              "of a list. Its `in_specs`, `out_specs` and `scratch_shapes` that the launch does not pass are "
              "read from its `grid_spec=` call, as JAX reads them",
    "label": "how messages name the construct (default: the API's short form, `pl.run_scoped`)",
    "where": "conditions on the construct's arguments (below); all must hold",
}
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
    unknown = set(v) - set(ARGUMENT_FIELDS)
    if unknown:
        raise DetectionError(f"{where}.{sorted(unknown)[0]}",
                             "unknown field (expected `position`, `keyword` or `rest`)")
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
    spec = CONDITION_TESTS[test]
    value, sub = spec.parse(c[test], arg, where, depth)
    if "where" in c:
        if not spec.takes_where:
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
        unknown = set(f) - set(FIX_OPS) - set(FIX_FIELDS)
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
        if not isinstance(on_underlined, bool) or (on_underlined and not FIX_OP_REGISTRY[ops[0]].on_underlined):
            editing = " or ".join(n for n, o in FIX_OP_REGISTRY.items() if o.on_underlined)
            raise DetectionError(f"{w}.onUnderlined", f"must be true or false, with {editing}")
        calls = f.get("unlessKernelCalls", [])
        if not isinstance(calls, list) or not all(isinstance(a, str) and _API_RE.match(a) for a in calls):
            raise DetectionError(f"{w}.unlessKernelCalls", "must be a list of public API names")
        op = ops[0]
        edit = FIX_OP_REGISTRY[op].parse(f[op], w)
        out.append(FixSpec(title, op, edit.get("name", ""), edit.get("value", ""), safe=safe,
                           unless_transformed_by=unless, when=when, when_transformed_by=when_by,
                           on_underlined=on_underlined, unless_kernel_calls=tuple(calls),
                           params=edit.get("params", ""), template=edit.get("template", "")))
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



# --- The vocabulary, registered --------------------------------------------------------------
# Each condition test and fix op is one registered object: its JSON key, how its value parses
# (errors name the field), its documentation and an example. docs/data-rules.md's reference and
# record.schema.json are generated from these (records/reference.py); rules/data.py decides
# each test and applies each op, keyed by the same names (it checks it covers them all).


@dataclass(frozen=True)
class ConditionTest:
    """A test a condition makes of its argument, written ``"<name>": <value>`` beside
    ``"argument"``. The base takes ``true`` and nothing else."""

    name: str
    doc: str
    example: dict
    takes_where: ClassVar[bool] = False  # ``"where": [...]`` beside it, tested on the call found

    def parse(self, value: Any, arg: ArgRef, where: str, depth: int) -> tuple[Any, tuple[Condition, ...]]:
        if value is not True:
            raise DetectionError(f"{where}.{self.name}", "must be true")
        return value, ()

    def value_schema(self) -> dict:
        return {"const": True}


@dataclass(frozen=True)
class WholeArrayTest(ConditionTest):
    def parse(self, value, arg, where, depth):
        if not isinstance(value, bool):
            raise DetectionError(f"{where}.{self.name}", "must be true or false")
        if arg.keyword not in ("in_specs", "out_specs"):
            raise DetectionError(f"{where}.argument", "a `wholeArray` test is about `in_specs` or `out_specs`")
        return value, ()

    def value_schema(self):
        return {"type": "boolean"}


@dataclass(frozen=True)
class LiteralTest(ConditionTest):
    def parse(self, value, arg, where, depth):
        if not _is_literal(value):
            raise DetectionError(f"{where}.{self.name}", "must be a literal (string, number, boolean or null)")
        return value, ()

    def value_schema(self):
        return {"$ref": "#/$defs/literal"}


@dataclass(frozen=True)
class LiteralListTest(ConditionTest):
    def parse(self, value, arg, where, depth):
        if not isinstance(value, list) or not value or not all(_is_literal(x) for x in value):
            raise DetectionError(f"{where}.{self.name}", "must be a non-empty list of literals")
        return tuple(value), ()

    def value_schema(self):
        return {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/literal"}}


@dataclass(frozen=True)
class IntegerTest(ConditionTest):
    def parse(self, value, arg, where, depth):
        if not isinstance(value, int) or isinstance(value, bool):
            raise DetectionError(f"{where}.{self.name}", "must be an integer")
        return value, ()

    def value_schema(self):
        return {"type": "integer"}


@dataclass(frozen=True)
class ApiTest(ConditionTest):
    takes_where: ClassVar[bool] = True

    def parse(self, value, arg, where, depth):
        return _apis(value, f"{where}.{self.name}"), ()

    def value_schema(self):
        return {"$ref": "#/$defs/apis"}


@dataclass(frozen=True)
class HeldCallTest(ConditionTest):
    """``{"api": [...], "where": [...]}``: a call of those APIs somewhere in the argument."""

    def parse(self, value, arg, where, depth):
        if not isinstance(value, dict) or "api" not in value or set(value) - {"api", "where"}:
            raise DetectionError(f"{where}.{self.name}", "must be an object with `api` (and optionally `where`)")
        sub = _conditions(value.get("where"), f"{where}.{self.name}.where", depth + 1)
        return _apis(value["api"], f"{where}.{self.name}.api"), sub

    def value_schema(self):
        return {"type": "object", "required": ["api"], "additionalProperties": False,
                "properties": {"api": {"$ref": "#/$defs/apis"}, "where": {"$ref": "#/$defs/conditions"}}}


def _registry(entries):
    out = {}
    for e in entries:
        if e.name in out:
            raise ValueError(f"{e.name} is registered twice")
        out[e.name] = e
    return out


_PL = "jax.experimental.pallas"
CONDITION_TESTS: dict[str, ConditionTest] = _registry([
    ConditionTest(
        "missing",
        "The argument is not passed, or is passed the literal `None`. Where the call spreads "
        "`*args` (a positional argument) or `**kwargs`, it may be passed there, and the test does not hold.",
        {"argument": {"position": 2, "keyword": "barrier"}, "missing": True}),
    ConditionTest(
        "present",
        "The argument is passed a value that is surely not `None`: a literal, a tuple or list, an API or "
        "a call of one, a local function, a comparison or arithmetic. A parameter or other value the "
        "analysis cannot tell does not count.",
        {"argument": {"keyword": "collective_axes"}, "present": True}),
    ConditionTest(
        "passed",
        "The argument is passed, and not as the literal `None`: for an argument that can only be a Ref "
        "or a value (a barrier), where a name the analysis cannot follow is still not `None`.",
        {"argument": {"keyword": "barrier"}, "passed": True}),
    ConditionTest(
        "truthy",
        "The argument is passed, and surely true the way JAX's `if value:` sees it: a literal, or a "
        "literal tuple, list or dict by its length.",
        {"argument": {"keyword": "has_side_effects"}, "truthy": True}),
    ConditionTest(
        "falsy",
        "The argument is passed, and surely false the way JAX's `if value:` sees it (a literal `None`, "
        "`0`, `False`, `\"\"`, or an empty literal tuple, list or dict).",
        {"argument": {"keyword": "collective_axes"}, "falsy": True}),
    ConditionTest(
        "nonEmptyAxes",
        "An axis-names argument (`collective_axes`) that JAX surely turns into a non-empty tuple "
        "(`if not isinstance(axes, tuple): axes = (axes,)`): any literal that is not a tuple, `None` and "
        "`\"\"` included, or a literal tuple with items, followed through names and the parameters the "
        "kernel's calls fill. `()` does not count, nor a list (it makes another error).",
        {"argument": {"keyword": "collective_axes"}, "nonEmptyAxes": True}),
    ConditionTest(
        "transposed",
        "The argument is a Ref view made by `.T` or `.transpose(...)`, written there or bound to a name, "
        "indexed or not.",
        {"argument": {"position": 0}, "transposed": True}),
    ConditionTest(
        "nonZero",
        "A literal number other than 0, or a literal tuple or list of numbers with one that is not 0 "
        "(`pl.Element(n, (1, 1))`'s padding).",
        {"argument": {"position": 1, "keyword": "padding"}, "nonZero": True}),
    ConditionTest(
        "movingIndexMap",
        "A lambda or def, written there or bound to a name, that returns an index which is surely not "
        "the literal 0 when traced: one of its own parameters, or a number other than 0 "
        "(`lambda i: (i, 0)`). A function with several returns does not count.",
        {"argument": {"position": 1, "keyword": "index_map"}, "movingIndexMap": True}),
    ConditionTest(
        "dynamicEntry",
        "A grid, or an entry of a literal grid, that JAX surely does not see as a Python int when the "
        "launch is built: a `jnp` value (`jnp.int32(n)`), a NumPy scalar, a traced `lax` value, or an "
        "argument of a function `jax.jit` traces (not among its static arguments).",
        {"argument": {"keyword": "grid"}, "dynamicEntry": True}),
    WholeArrayTest(
        "wholeArray",
        "On `in_specs` or `out_specs` of a launch (or of its grid spec). `true`: every BlockSpec there "
        "surely covers its whole array (JAX's `has_trivial_window`: the block is the array's shape, known "
        "from the operands the launch is applied to, followed to the callers' `jnp.ones((8, 128))`, or "
        "from `out_shape`, and the index map returns literal zeros; an argument not passed is whole "
        "arrays). `false`: one surely does not (its block differs from the array's known shape); that "
        "BlockSpec's call is what `underline.condition` points at.",
        {"argument": {"keyword": "in_specs"}, "wholeArray": False}),
    LiteralTest(
        "equals",
        "The argument is this literal (string, number, boolean or null; `true` is not `1` here).",
        {"argument": {"keyword": "dimension_semantics"}, "equals": "parallel"}),
    LiteralListTest(
        "notIn",
        "The argument is a literal that is none of these.",
        {"argument": {"keyword": "reduction_op"}, "notIn": ["add", None]}),
    IntegerTest(
        "greaterThan",
        "The argument is a literal integer greater than this one.",
        {"argument": {"keyword": "num_cores"}, "greaterThan": 1}),
    ApiTest(
        "api",
        "The argument is one of these APIs (public qualified names), or a call of one, seen through "
        "`.at[...]`, indexing, names and a small local helper's return (`spec(pltpu.SMEM)`). With "
        "`\"where\": [...]` beside it, those conditions must hold of the call the argument is.",
        {"argument": {"keyword": "memory_space"}, "api": [f"{_PL}.mosaic_gpu.SMEM"]}),
    HeldCallTest(
        "contains",
        "A literal list or tuple holding a call of `api` (one of those APIs) for which the conditions "
        "of `where` hold (`scratch_shapes=[plgpu.RefUnion(...)]`). With `\"argument\": {\"rest\": n}` "
        "the arguments from position n on, and every keyword's value, are that list.",
        {"argument": {"keyword": "scratch_shapes"}, "contains": {"api": [f"{_PL}.mosaic_gpu.RefUnion"]}}),
    HeldCallTest(
        "anyLeaf",
        "The argument is a call of `api` for which `where` holds, or a literal list, tuple or dict holds "
        "one at any depth (a pytree of BlockSpecs).",
        {"argument": {"keyword": "in_specs"},
         "anyLeaf": {"api": [f"{_PL}.BlockSpec"],
                     "where": [{"argument": {"keyword": "memory_space"}, "api": [f"{_PL}.tpu.SMEM"]}]}}),
])
TESTS = tuple(CONDITION_TESTS)

ARGUMENT_FIELDS = {
    "position": "the argument's position (0 is the first)",
    "keyword": "its keyword; with `position` too, either way of passing it counts",
    "rest": "alone, and only with a `contains` test: the positional arguments from this position on and "
            "every keyword argument's value, seen as one list (`pl.run_scoped(body, *types, **kw_types)`: "
            "`{\"rest\": 1}`)",
}


@dataclass(frozen=True)
class FixOp:
    """An edit a fix makes, written ``"<name>": <value>`` beside ``"title"``. The base is an op
    done in Python (``"<name>": true``): ``module`` names the file."""

    name: str
    doc: str
    example: dict
    module: str = ""  # the rules/ module that makes the edit, for an op done in Python
    on_underlined: bool = False  # may edit the call ``underline.condition`` found instead

    def parse(self, body: Any, where: str) -> dict[str, str]:
        """The op's value as FixSpec fields (``name``, ``value``, ``template``, ``params``)."""
        if body is not True:
            raise DetectionError(f"{where}.{self.name}", "must be true")
        return {}

    def value_schema(self) -> dict:
        return {"const": True}


@dataclass(frozen=True)
class KeywordNameOp(FixOp):
    def parse(self, body, where):
        if not isinstance(body, str) or not _IDENT_RE.match(body):
            raise DetectionError(f"{where}.{self.name}", "must be a keyword name")
        return {"name": body}

    def value_schema(self):
        return {"$ref": "#/$defs/identifier"}


@dataclass(frozen=True)
class CodeOp(FixOp):
    """Python code (a template of at most ``lines`` lines), parsed, never run."""

    lines: int = 1

    def parse(self, body, where):
        return {"value": _fix_value(body, f"{where}.{self.name}", lines=self.lines)}

    def value_schema(self):
        return {"$ref": "#/$defs/code" if self.lines == 1 else "#/$defs/template"}


# How each field of an object-valued op is checked: a keyword or parameter name, or code.
_FIELD_KINDS = {
    "keyword": "a keyword name", "parameter": "a parameter name",
    "srcParameter": "a parameter name ({src}: the source buffer's)",
    "code": "one line of Python code", "template": f"at most {MAX_TEMPLATE_LINES} lines of Python code",
}


@dataclass(frozen=True)
class ObjectOp(FixOp):
    """An object of exactly ``fields``: (JSON key, kind in _FIELD_KINDS, FixSpec field)."""

    fields: tuple[tuple[str, str, str], ...] = ()

    def parse(self, body, where):
        keys = [k for k, _, _ in self.fields]
        if not isinstance(body, dict) or set(body) != set(keys):
            listed = [f"`{k}`" for k in keys]
            words = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + " and " + listed[-1]
            raise DetectionError(f"{where}.{self.name}", f"must be an object with {words}")
        out = {}
        for key, kind, target in self.fields:
            w = f"{where}.{self.name}.{key}"
            v = body[key]
            if kind in ("keyword", "parameter"):
                if not isinstance(v, str) or not _IDENT_RE.match(v):
                    raise DetectionError(w, f"must be {_FIELD_KINDS[kind]}")
            elif kind == "srcParameter":
                if not isinstance(v, str) or not _IDENT_RE.match(v.replace("{src}", "src")):
                    raise DetectionError(w, f"must be {_FIELD_KINDS[kind]}")
            else:
                v = _fix_value(v, w, lines=MAX_TEMPLATE_LINES if kind == "template" else 1)
            out[target] = v
        return out

    def value_schema(self):
        kinds = {"keyword": "#/$defs/identifier", "parameter": "#/$defs/identifier",
                 "srcParameter": "#/$defs/srcParameter", "code": "#/$defs/code", "template": "#/$defs/template"}
        return {"type": "object", "required": [k for k, _, _ in self.fields], "additionalProperties": False,
                "properties": {k: {"$ref": kinds[kind]} for k, kind, _ in self.fields}}


_NAME_VALUE = (("name", "keyword", "name"), ("value", "code", "value"))
_TPU = "{jax.experimental.pallas.tpu}"
_GPU = "{jax.experimental.pallas.mosaic_gpu}"
FIX_OP_REGISTRY: dict[str, FixOp] = _registry([
    ObjectOp(
        "setKeyword",
        "Set a keyword of the construct's call to `value` (added, or its value replaced). Setting "
        "`interpret` on a launch whose `interpret=` is a module-level switch set to `True` "
        "(`interpret=INTERPRET`) writes `<value> if INTERPRET else INTERPRET`, so the switch keeps "
        "deciding; where the mode comes from elsewhere (a wrapper, a partial, a context manager) it is not offered.",
        {"title": "Pass `inline_mgpu='ignore'`", "setKeyword": {"name": "inline_mgpu", "value": "'ignore'"}},
        on_underlined=True, fields=_NAME_VALUE),
    ObjectOp(
        "setLaunchKeyword",
        "Set a keyword of the launch the construct's call is in (for a `launch` construct, the launch "
        "itself): `interpret=pltpu.InterpretParams()` for a semaphore signal. Not offered for a launch "
        "in another module.",
        {"title": "Interpret with TPU params", "safe": False,
         "setLaunchKeyword": {"name": "interpret", "value": f"{_TPU}.InterpretParams()"}},
        fields=_NAME_VALUE),
    KeywordNameOp(
        "removeKeyword",
        "Remove this keyword argument from the construct's call.",
        {"title": "Drop `collective_axes=` while interpreting", "removeKeyword": "collective_axes"},
        on_underlined=True),
    ObjectOp(
        "setInterpretParam",
        "Set a field of the interpret params call the launch is given (`pltpu.InterpretParams(...)`); "
        "not offered where the params are built elsewhere (a bare `force_` call).",
        {"title": "Ignore MGPU calls", "setInterpretParam": {"name": "inline_mgpu", "value": "'ignore'"}},
        fields=_NAME_VALUE),
    ObjectOp(
        "setCompilerParam",
        "Set a field of the launch's compiler params call, or, where the launch has none, add "
        "`compiler_params=<params>(<name>=<value>)` to it.",
        {"title": "Lower with lane semantics",
         "setCompilerParam": {"name": "lowering_semantics", "value": f"{_GPU}.LoweringSemantics.Lane",
                              "params": f"{_GPU}.CompilerParams"}},
        fields=_NAME_VALUE + (("params", "code", "params"),)),
    CodeOp(
        "replaceCallee",
        "Replace what the call `underline.condition` found calls (`plgpu.SMEM(...)` becomes "
        "`pltpu.VMEM(...)`); needs `underline.condition`.",
        {"title": "Use VMEM", "replaceCallee": f"{_TPU}.VMEM"}),
    CodeOp(
        "replaceCall",
        "Replace the construct's call by this template. `{arg:0}` / `{arg:mask}` is the code of its "
        "argument at that position or keyword (the fix is not offered where it is not passed), "
        "`{arg:2|predicate}` the argument at that position or keyword, `{callWithout:reduce}` the call "
        "as written less that argument. A statement template (`{arg:0}[...] = {arg:1}`, up to "
        f"{MAX_TEMPLATE_LINES} lines) replaces a call that is a whole statement on its own line, its "
        "later lines indented as that statement is. A name the template binds (a walrus target) must "
        "not be one the function already uses, or the fix is not offered.",
        {"title": "Load with `jnp.where`", "replaceCall": "{jax.numpy}.where({arg:mask}, {arg:0}[...], {arg:other})"},
        lines=MAX_TEMPLATE_LINES),
    ObjectOp(
        "addScratch",
        "One more kernel scratch buffer: `value` appended to the launch's scratch list (or the keyword "
        "added), passed to the kernel as a new last parameter `name`, and the construct's call replaced "
        "by `replaceCall`, where `{call:2|barrier=barrier}` is the call with that argument passed as "
        "`barrier=barrier`. Offered only for a call in the kernel itself, a plain def launched once, "
        "whose parameters and locals do not use `name`.",
        {"title": "Wait on a new barrier",
         "addScratch": {"name": "barrier", "value": f"{_GPU}.Barrier()",
                        "replaceCall": f"{{call:2|barrier=barrier}}\n{_GPU}.barrier_wait(barrier)"}},
        fields=(("name", "parameter", "name"), ("value", "code", "value"), ("replaceCall", "template", "template"))),
    ObjectOp(
        "transposeIntoScratch",
        "A TMA store from a 2-D transposed view done in a new SMEM buffer shaped like the source "
        "buffer's scratch entry (whose literal shape it needs); `{src}` in `name` is the source buffer's name.",
        {"title": "Transpose into a scratch buffer first", "transposeIntoScratch": {"name": "{src}_t"}},
        module="rules/scratch_fixes.py", fields=(("name", "srcParameter", "name"),)),
    ObjectOp(
        "reduceInScratch",
        "A TMA store with `reduction_op=` done by reducing in a new SMEM buffer shaped like the source "
        "buffer's scratch entry, with a barrier; `{src}` in a name is the source buffer's name.",
        {"title": "Reduce in a scratch buffer",
         "reduceInScratch": {"name": "{src}_acc", "barrier": "{src}_barrier"}},
        module="rules/scratch_fixes.py",
        fields=(("barrier", "srcParameter", "value"), ("name", "srcParameter", "name"))),
    FixOp(
        "makeGridStatic",
        "PAL004's edits for the launch's first grid entry that is not a Python int: the traced "
        "parameter added to `static_argnames` of the `jax.jit` tracing it, or `jnp.int32(n)` of a "
        "static `n` unwrapped. `{what}` in the title says which.",
        {"title": "Make the grid static: {what}", "safe": True, "makeGridStatic": True},
        module="rules/dynamic_grid_gpu_interpret.py"),
    FixOp(
        "extendContext",
        "The `with force_*_interpret_mode():` block a launch's mode read escapes, extended over the "
        "statements right after it when each of them holds such a read.",
        {"title": "Extend the interpret-mode block", "safe": True, "extendContext": True},
        module="rules/context_fixes.py"),
    FixOp(
        "buildInContext",
        "A launch read when built, `name = pl.pallas_call(...)` before a function's "
        "`with force_*_interpret_mode():` block that calls it, built again as the block's first "
        "statement; offered only where every use of the name in that function is inside the block and "
        "the function binds none of the names the build reads. `{name}` in the title is the name.",
        {"title": "Build `{name}` inside the block", "safe": True, "buildInContext": True},
        module="rules/context_fixes.py"),
    FixOp(
        "interpretOnCpuHosts",
        "A launch whose `interpret=` value is falsy on a CPU host the code pins or tests for: its value "
        "`v` written `v or jax.default_backend() == \"cpu\"`, a literal `False`/`None` or the inverted "
        "host test itself replaced by the test. The launch's keyword is edited, never a parameter's "
        "default. `{value}` in the title is the new value.",
        {"title": "Interpret on CPU hosts: `interpret={value}`", "interpretOnCpuHosts": True},
        module="rules/context_fixes.py"),
    FixOp(
        "stopGradientAtInputs",
        "Each argument of the built kernel's one application in the module wrapped in "
        "`jax.lax.stop_gradient`.",
        {"title": "Stop gradients at the kernel's inputs", "stopGradientAtInputs": True},
        module="rules/transform_fixes.py"),
    FixOp(
        "im2colRowsOutside",
        "A copy from a `plgpu.im2col_ref` view made to read rows built outside the kernel (a new input; "
        "`{name}` in the title is its name).",
        {"title": "Build the im2col rows outside the kernel as `{name}`", "im2colRowsOutside": True},
        module="rules/im2col_fix.py"),
])
FIX_OPS = tuple(FIX_OP_REGISTRY)

# A fix's fields beside its one op.
FIX_FIELDS = {
    "title": "required: the quick fix's title",
    "safe": "`true` when the program keeps running in the mode it is launched in (`pallas-lsp check --fix` "
            "applies those); any other fix needs `--unsafe-fixes` (default `false`)",
    "unlessTransformedBy": "kinds or transformation APIs: not offered under those transformations, where the "
                           "edit would only meet the next error",
    "whenTransformedBy": "kinds or transformation APIs: offered only for a launch those transformations reach "
                         "(TPU interpret params for a remote signal under `jax.shard_map`)",
    "when": "conditions on the construct's call: offered only where they hold (the TPU interpreter has one "
            "core unless told otherwise, so its params are offered for `core_index=0` only)",
    "onUnderlined": "`true`: the edit (`setKeyword` or `removeKeyword`) is on the call `underline.condition` "
                    "found (`leader_tracked=True` of the `plgpu.ClusterBarrier(...)` a run_scoped allocates)",
    "unlessKernelCalls": "public API names: not offered where the kernel reaches another call of those APIs",
}


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
    known = set(DETECTION_FIELDS) - (set() if allow_also else {"also"})
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
    unknown = set(construct) - set(CONSTRUCT_FIELDS)
    if unknown:
        raise DetectionError(f"{cw}.{sorted(unknown)[0]}", f"unknown field (known: {', '.join(CONSTRUCT_FIELDS)})")
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
        raise DetectionError(f"{where}.underline",
                             "\"transform\" needs `transformedBy` (the transformation to point at)")
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
