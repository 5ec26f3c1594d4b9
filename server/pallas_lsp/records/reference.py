"""The detection schema's reference and JSON Schema, generated from its registry (detection.py).

``docs/data-rules.md`` holds the reference between :data:`BEGIN` and :data:`END`, and the package
ships ``record.schema.json`` (draft 2020-12) for editors to validate record files with; both are
written by ``pallas-lsp dev schema`` and the tests check they are current.
"""
from __future__ import annotations

import json
import re
from importlib import resources
from typing import Any

from . import OPTIONAL_FIELDS, REQUIRED_FIELDS, SUPPORTED_SCHEMA_VERSIONS, TPU_GENERATIONS
from .detection import (_API_RE, _CODE_RE, _IDENT_RE, _NAME_RE, ARGUMENT_FIELDS, CONDITION_TESTS, CONSTRUCT_FIELDS,
                        DETECTION_FIELDS, FIX_FIELDS, FIX_OP_REGISTRY, MAX_ALSO, MAX_CONDITIONS, MAX_TEMPLATE_LINES,
                        MAX_TEXT, MODE_DOCS, PLACEHOLDER_DOCS, PLATFORMS, SEMANTICS, TRANSFORM_APIS, TRANSFORM_KINDS)

BEGIN = "<!-- BEGIN GENERATED: detection reference (pallas-lsp dev schema --docs docs/data-rules.md) -->"
END = "<!-- END GENERATED: detection reference -->"
SCHEMA_FILE = "record.schema.json"

RECORD_FIELD_DOCS = {
    "id": "a unique id",
    "slug": "the record's name (kebab-case): how rules, `explain` and detection files refer to it",
    "errorMessage": "the message JAX raises (the newest release's), interpolated parts written `<name>`",
    "messagePattern": "a regular expression (RE2: keep character classes ASCII) matching a line of a pasted error",
    "errorClass": "the exception's class (`NotImplementedError`)",
    "repo": "the repository that raises it (`jax-ml/jax`)",
    "documentation": "why it happens, for hovers and `explain`",
    "triggerScenarios": "what code raises it",
    "commonSituations": "when authors meet it",
    "solutions": "how to fix it, one entry per way",
    "exampleFix": "code that runs clean",
    "githubUrl": "an `https:` link to where JAX raises it (any other link is dropped)",
    "filePath": "jax's file that raises it",
    "lineNumber": "the line there",
    "severity": "how bad it is (`error`)",
    "preventionTips": "how to avoid it",
    "tags": "free-form tags",
    "analyzedSha": "the jax commit the record was read from",
    "schemaVersion": "the record format's version",
    "detection": "where the analysis finds the error: the detection section above",
    "wordings": "the messages JAX releases print for it: `{\"message\", \"pattern\", \"releases\"}` each "
                "(see \"What JAX prints, release by release\")",
    "raisedAt": "where JAX raises it with no message: `{\"file\", \"function\", \"releases\"}` each",
    "releases": "the only jax releases that raise it, verified by running (`[\"0.11.2\", \"0.12.0.1\"]`): "
                "its rules stay quiet when the code is checked against another release; absent: every release",
    "chips": "the TPU generations whose real chip showed the error, with the jax releases run: "
             "`{\"generation\": \"v5e\", \"releases\": [\"0.10.2\"]}` each (generations: "
             + ", ".join(TPU_GENERATIONS) + "); a finding of the kind is claimed only for these "
             "(docs/chips.md)",
}


def _ref(name: str) -> dict:
    return {"$ref": f"#/$defs/{name}"}


def _described(schema: dict, doc: str) -> dict:
    return {**schema, "description": doc}


# The JSON value each detection field, fix field and record field takes (their meaning is
# registered in detection.py; keys must match, or generating fails).
_DETECTION_FIELD_SCHEMAS: dict[str, dict] = {
    "code": {"type": "string", "pattern": _CODE_RE.pattern},
    "name": {"type": "string", "pattern": _NAME_RE.pattern},
    "summary": _ref("text"),
    "construct": _ref("construct"),
    "modes": {"type": "array", "minItems": 1, "items": {"enum": list(MODE_DOCS)}},
    "launchedBy": _ref("apis"),
    "unlessInterpretParams": {"type": "object", "minProperties": 1,
                              "propertyNames": {"pattern": _IDENT_RE.pattern},
                              "additionalProperties": _ref("literal")},
    "loweredFor": {"type": "array", "minItems": 1, "items": {"enum": list(PLATFORMS)}},
    "loweringSemantics": {"type": "array", "minItems": 1, "items": {"enum": list(SEMANTICS)}},
    "quietWhenLaunch": _ref("conditions"),
    "transformedBy": _ref("transforms"),
    "underline": _ref("underline"),
    "error": _ref("messageTemplate"),
    "headline": _ref("messageTemplate"),
    "fixes": {"type": "array", "maxItems": 8, "items": _ref("fix")},
    "also": {"type": "array", "minItems": 1, "maxItems": MAX_ALSO, "items": _ref("alsoEntry")},
}
_FIX_FIELD_SCHEMAS: dict[str, dict] = {
    "title": _ref("text"),
    "safe": {"type": "boolean"},
    "unlessTransformedBy": _ref("transforms"),
    "whenTransformedBy": _ref("transforms"),
    "when": _ref("conditions"),
    "onUnderlined": {"type": "boolean"},
    "unlessKernelCalls": {"type": "array", "items": {"type": "string", "pattern": _API_RE.pattern}},
}
_JSON_TYPES = {str: "string", list: "array", int: "integer", dict: "object"}
_STRING_LISTS = {"solutions", "preventionTips", "tags"}
_RELEASES = {"type": "array", "minItems": 1, "items": {"type": "string", "pattern": r"^\d+\.\d+(?:\.\d+){0,2}$"}}


def _json_type(typ: type | tuple[type, ...]) -> str:
    return _JSON_TYPES[typ] if isinstance(typ, type) else "/".join(_JSON_TYPES[t] for t in typ)


def _same_keys(schemas: dict, docs: dict, what: str) -> None:
    if set(schemas) != set(docs):
        raise ValueError(f"{what}: documented {sorted(docs)}, given a JSON schema {sorted(schemas)}")


def _record_field_schema(name: str, typ: type | tuple[type, ...]) -> dict:
    if name == "detection":
        return _ref("detection")
    if name in _STRING_LISTS:
        return {"type": "array", "items": {"type": "string"}}
    if name == "schemaVersion":
        return {"enum": sorted(SUPPORTED_SCHEMA_VERSIONS)}
    if name == "wordings":
        return {"type": "array", "items": {"type": "object", "required": ["message", "pattern", "releases"],
                                           "properties": {"message": _ref("text"), "pattern": _ref("text"),
                                                          "releases": _RELEASES}}}
    if name == "raisedAt":
        return {"type": "array", "items": {"type": "object", "required": ["file", "function", "releases"],
                                           "properties": {"file": {"type": "string", "pattern": r"\.py$"},
                                                          "function": {"type": "string"}, "releases": _RELEASES}}}
    if name == "releases":
        return _RELEASES
    if name == "chips":
        return {"type": "array", "items": {"type": "object", "required": ["generation", "releases"],
                                           "properties": {"generation": {"enum": list(TPU_GENERATIONS)},
                                                          "releases": _RELEASES}}}
    return {"type": _json_type(typ)}


def record_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a records file: one record, bare or wrapped as
    ``{"record": ...}``, or a list of them."""
    _same_keys(_DETECTION_FIELD_SCHEMAS, DETECTION_FIELDS, "detection section fields")
    _same_keys(_FIX_FIELD_SCHEMAS, FIX_FIELDS, "fix fields")
    _same_keys({**REQUIRED_FIELDS, **OPTIONAL_FIELDS}, RECORD_FIELD_DOCS, "record fields")
    placeholders = "|".join(PLACEHOLDER_DOCS)
    tests = {name: _described(t.value_schema(), t.doc) for name, t in CONDITION_TESTS.items()}
    ops = {name: _described(o.value_schema(), o.doc) for name, o in FIX_OP_REGISTRY.items()}

    def section(fields: dict[str, str]) -> dict:
        return {name: _described(_DETECTION_FIELD_SCHEMAS[name], doc) for name, doc in fields.items()}

    record_props = {name: _described(_record_field_schema(name, typ), RECORD_FIELD_DOCS[name])
                    for name, typ in {**REQUIRED_FIELDS, **OPTIONAL_FIELDS}.items()}
    for name in OPTIONAL_FIELDS:  # (the loader reads null as not given)
        record_props[name] = {"anyOf": [record_props[name], {"type": "null"}],
                              "description": record_props[name]["description"]}
    for name in REQUIRED_FIELDS:
        record_props[name] = {**record_props[name], "pattern": r"\S"}
    defs: dict[str, Any] = {
        "entry": {"if": {"type": "object", "required": ["record"]}, "then": _ref("wrapped"), "else": _ref("record")},
        "wrapped": {"type": "object", "required": ["record"], "properties": {"record": _ref("record")},
                    "description": "a record wrapped as the user's dataset format has it"},
        # (Other fields are allowed: the loader ignores them, and the seed records carry some.)
        "record": {"type": "object", "required": list(REQUIRED_FIELDS), "properties": record_props},
        "detection": {"type": "object", "required": ["code", "name", "construct", "modes"],
                      "additionalProperties": False, "properties": section(DETECTION_FIELDS)},
        "alsoEntry": {"type": "object", "required": ["code", "name"], "additionalProperties": False,
                      "properties": section({k: v for k, v in DETECTION_FIELDS.items() if k != "also"})},
        "construct": {"type": "object", "additionalProperties": False,
                      "oneOf": [{"required": ["call"]}, {"required": ["launch"]}],
                      "properties": {"call": _described(_ref("apis"), CONSTRUCT_FIELDS["call"]),
                                     "launch": _described(_ref("apis"), CONSTRUCT_FIELDS["launch"]),
                                     "label": _described(_ref("text"), CONSTRUCT_FIELDS["label"]),
                                     "where": _described(_ref("conditions"), CONSTRUCT_FIELDS["where"])}},
        "conditions": {"type": "array", "maxItems": MAX_CONDITIONS, "items": _ref("condition")},
        "condition": {
            "type": "object", "required": ["argument"], "additionalProperties": False,
            "properties": {"argument": _ref("argument"),
                           "where": _described(_ref("conditions"), "with an `api` test: conditions on the call "
                                                                   "the argument is"),
                           **tests},
            "oneOf": [{"required": [name]} for name in CONDITION_TESTS],
            "allOf": [{"if": {"required": ["where"]},
                       "then": {"required": [n for n, t in CONDITION_TESTS.items() if t.takes_where]}},
                      {"if": {"properties": {"argument": {"required": ["rest"]}}},
                       "then": {"required": ["contains"]}}]},
        "argument": {"type": "object", "minProperties": 1, "additionalProperties": False,
                     "properties": {"position": _described({"type": "integer", "minimum": 0, "maximum": 63},
                                                           ARGUMENT_FIELDS["position"]),
                                    "keyword": _described(_ref("identifier"), ARGUMENT_FIELDS["keyword"]),
                                    "rest": _described({"type": "integer", "minimum": 0, "maximum": 63},
                                                       ARGUMENT_FIELDS["rest"])},
                     "not": {"required": ["rest"], "minProperties": 2}},
        "underline": {"anyOf": [{"enum": ["construct", "transform", "host"]},
                                {"type": "object", "minProperties": 1, "additionalProperties": False,
                                 "properties": {"argument": _ref("argument"),
                                                "condition": {"type": "integer", "minimum": 0}}}]},
        "fix": {"type": "object", "required": ["title"], "additionalProperties": False,
                "properties": {**{name: _described(_FIX_FIELD_SCHEMAS[name], doc) for name, doc in FIX_FIELDS.items()},
                               **ops},
                "oneOf": [{"required": [name]} for name in FIX_OP_REGISTRY]},
        "transforms": {"type": "array", "minItems": 1, "items": {"enum": list(TRANSFORM_KINDS + TRANSFORM_APIS)}},
        "api": {"type": "string", "pattern": _API_RE.pattern},
        "apis": {"anyOf": [_ref("api"), {"type": "array", "minItems": 1, "maxItems": 32, "items": _ref("api")}]},
        "literal": {"type": ["string", "number", "boolean", "null"]},
        "identifier": {"type": "string", "pattern": _IDENT_RE.pattern},
        "srcParameter": {"type": "string", "pattern": r"^(?:[A-Za-z_]|\{src\})(?:[A-Za-z0-9_]|\{src\})*$"},
        "text": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": r"\S"},
        "messageTemplate": {"type": "string", "minLength": 1, "maxLength": MAX_TEXT, "pattern": r"\S",
                            "not": {"pattern": r"\{(?!(?:" + placeholders + r")\})[^{}]*\}"},
                            "description": "placeholders: " + ", ".join("{" + p + "}" for p in PLACEHOLDER_DOCS)},
        "code": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"^[^\n]*$",
                 "description": "one line of Python code, parsed, never run"},
        "template": {"type": "string", "minLength": 1, "maxLength": 200 * MAX_TEMPLATE_LINES,
                     "description": f"at most {MAX_TEMPLATE_LINES} lines of Python code, parsed, never run"},
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pallas-lsp error records",
        "description": "A records file: one error record, bare or wrapped as {\"record\": ...}, or a list of them "
                       "(docs/data-rules.md).",
        "anyOf": [_ref("entry"), {"type": "array", "items": _ref("entry")}],
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(record_schema(), indent=2, ensure_ascii=False) + "\n"


def shipped_schema_text() -> str:
    """The schema file the package ships."""
    return resources.files(__package__).joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _example(obj: dict) -> str:
    return "```json\n" + json.dumps(obj, ensure_ascii=False) + "\n```"


def reference_markdown() -> str:
    """The reference section of docs/data-rules.md, markers included."""
    out = [BEGIN, "", "### Detection section fields", "", "| field | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in DETECTION_FIELDS.items()]
    out += ["", "### Construct", "", "| key | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in CONSTRUCT_FIELDS.items()]
    out += ["", "### Modes", "", "| mode | the kernel runs |", "| --- | --- |"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in MODE_DOCS.items()]
    out += ["", "### Templates", "", "`error`, `headline` and fix titles may use these placeholders:", "",
            "| placeholder | stands for |", "| --- | --- |"]
    out += [f"| `{{{k}}}` | {_cell(v)} |" for k, v in PLACEHOLDER_DOCS.items()]
    out += ["", "### Conditions", "",
            "A condition is `{\"argument\": {...}, \"<test>\": <value>}`: the argument it names, and exactly one "
            "test. A value the analysis cannot tell never satisfies a test: a data rule speaks only when the code "
            "says so.", "", "| `argument` key | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in ARGUMENT_FIELDS.items()]
    for name, test in CONDITION_TESTS.items():
        out += ["", f"#### `{name}`", "", test.doc, "", _example(test.example)]
    out += ["", "### Fixes", "",
            "A fix is `{\"title\": ..., \"<op>\": <value>}`: exactly one op, and these fields. A value may name a "
            "module as `{jax.experimental.pallas.tpu}`: the edit writes the module's own name for it and imports "
            "it where it is not imported.", "", "| field | meaning |", "| --- | --- |"]
    out += [f"| `{k}` | {_cell(v)} |" for k, v in FIX_FIELDS.items()]
    for name, op in FIX_OP_REGISTRY.items():
        made = f" (Python: `{op.module}`)" if op.module else ""
        out += ["", f"#### `{name}`{made}", "", op.doc, "", _example(op.example)]
    out += ["", "### Record fields", "", "| field | JSON | meaning |", "| --- | --- | --- |"]
    for name, typ in {**REQUIRED_FIELDS, **OPTIONAL_FIELDS}.items():
        required = " (required)" if name in REQUIRED_FIELDS else ""
        out.append(f"| `{name}` | {_json_type(typ)}{required} | {_cell(RECORD_FIELD_DOCS[name])} |")
    out += ["", END]
    return "\n".join(out)


_SECTION = re.compile(re.escape(BEGIN.split(" (")[0]) + r".*?" + re.escape(END), re.S)


def with_reference(page: str) -> str:
    """``page`` with its generated section replaced by the current reference."""
    if not _SECTION.search(page):
        raise ValueError(f"no generated section ({BEGIN} ... {END}) in the page")
    return _SECTION.sub(lambda _: reference_markdown(), page, count=1)
