"""A pytest plugin: ``pytest --pallas-explain`` (or ``pallas_explain = true`` in the ini file)
adds a "pallas-lsp" section to the report of each failing test whose exception matches an
error record: the record's slug, what happened, why, how to fix it, and where JAX raises it.

Registered through the package's ``pytest11`` entry point, so it is loaded wherever
pallas-lsp is installed: it is inert unless asked. It imports nothing of pallas-lsp's until a
test fails (the records are loaded once, at the first failure), and it never changes an
outcome: it only adds a section to a report that already failed. The explanation is added in
the process that ran the test, so it travels with the report under pytest-xdist (``-n``).
"""
from __future__ import annotations

import traceback

import pytest

SECTION = "pallas-lsp"
_STORE_KEY = pytest.StashKey[object]()  # the records, loaded at the first failure


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("pallas-lsp")
    group.addoption("--pallas-explain", action="store_true", default=None,
                    help="explain failing tests whose error matches a Pallas error record (pallas-lsp)")
    parser.addini("pallas_explain", type="bool", default=False,
                  help="explain failing tests whose error matches a Pallas error record (pallas-lsp)")


def _enabled(config: pytest.Config) -> bool:
    flag = config.getoption("pallas_explain", default=None)
    return bool(flag) if flag is not None else bool(config.getini("pallas_explain"))


def _error_text(excinfo: pytest.ExceptionInfo) -> str:
    """The messages of the exception and of its whole chain (``__cause__``/``__context__``:
    JAX often raises the record's error inside a callback or a lowering and re-raises another),
    then the traceback (host-callback errors carry the callback's in their message)."""
    messages, seen, todo = [], set(), [excinfo.value]
    while todo:
        exc = todo.pop(0)
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        try:
            messages.append("".join(traceback.format_exception_only(type(exc), exc)))
        except Exception:  # noqa: BLE001 - an exception whose __str__ fails
            messages.append(type(exc).__name__)
        todo += [exc.__cause__, exc.__context__]
    try:
        whole = "".join(traceback.format_exception(excinfo.value))
    except Exception:  # noqa: BLE001
        whole = ""
    return "".join(messages) + whole


def _store(config: pytest.Config):
    store = config.stash.get(_STORE_KEY, None)
    if store is None:
        from .records import default_store

        store = default_store()
        config.stash[_STORE_KEY] = store
    return store


def explanation_text(text: str, store) -> str:
    """The plain-text explanation of ``text`` (empty when no record matches)."""
    from .explain import explain_text

    chunks = []
    for e in explain_text(text, store):
        rec = e.record
        lines = [f"{rec.error_class}: {rec.error_message}", f"  record: {rec.slug} (id {rec.id})",
                 f"  matched: {e.matched_line[:300]}"]
        if e.note:
            lines.append(f"  note: {e.note}")
        if rec.trigger_scenarios:
            lines.append(f"  what happened: {rec.trigger_scenarios}")
        if rec.documentation:
            lines.append(f"  why: {rec.documentation}")
        if rec.solutions:
            lines.append("  how to fix:")
            lines += [f"    - {s}" for s in rec.solutions]
        if rec.example_fix:
            lines.append("  example fix:")
            lines += [f"      {ln}" for ln in rec.example_fix.splitlines()]
        if rec.link:
            lines.append(f"  upstream: {rec.link}")
        chunks.append("\n".join(lines))
    return "\n\n".join(chunks)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None or not _enabled(item.config):
        return
    try:
        text = explanation_text(_error_text(call.excinfo), _store(item.config))
    except Exception as exc:  # noqa: BLE001 - explaining must never change what the run reports
        text = f"(pallas-lsp could not explain this failure: {type(exc).__name__}: {exc})"
    if not text:
        return
    longrepr = report.longrepr
    if hasattr(longrepr, "addsection"):  # shown under the traceback, whatever --show-capture says
        longrepr.addsection(SECTION, text)
    else:
        report.sections.append((SECTION, text))
