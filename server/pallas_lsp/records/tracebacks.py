"""Bare raises in a pasted traceback: an exception with no message, and the frame that raised it.

JAX raises some errors with no message at all (``raise NotImplementedError``, a failing
``assert``). A traceback of one ends in a line that is only the class name, and what tells
such errors apart is the frame just above it: the file and function that raised it. Records
name those sites (``raisedAt``), and this module finds them in text as users paste it:

- Python's own format (``File "...", line N, in func`` with or without the source line
  under it: an error raised inside a host callback comes back as ``CpuCallback error`` with
  the frames only, and the class line is ``AssertionError: ``);
- pytest's ``--tb=short`` format (``path:N: in func``, the class line after ``E``).

Only the last frame before the class line counts (the one that raised it), and only when the
class line holds nothing else: a class name alone says nothing, so without its frame nothing
matches.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_PYTHON_FRAME = re.compile(r'^\s*File "(?P<path>[^"\n]+)", line \d+, in (?P<function>[\w.<>]+)\s*$')
_PYTEST_FRAME = re.compile(r"^(?P<path>[^\s:][^:\n]*\.py):\d+: in (?P<function>[\w.<>]+)\s*$")
# The class line of a bare raise: the (possibly qualified) class, an optional empty ": ".
# pytest marks it with "E" and spaces.
_BARE_CLASS = re.compile(r"^(?:E\s+)?(?:[A-Za-z_][\w]*\.)*(?P<cls>[A-Za-z_]\w*)(?::\s*)?$")
_TRACEBACK_START = "Traceback (most recent call last):"


@dataclass(frozen=True)
class BareRaise:
    """An exception raised with no message, and the frame that raised it."""

    path: str  # as printed, with forward slashes
    function: str
    error_class: str  # unqualified: "AssertionError"
    frame_line: str  # the frame's line, stripped, to show what matched


def bare_raises(lines: list[str]) -> list[BareRaise]:
    """Each bare raise in ``lines`` (a message or whole traceback, split into lines)."""
    found: list[BareRaise] = []
    frame: tuple[str, str, str] | None = None  # (path, function, line) of the last frame seen
    for line in lines:
        if _TRACEBACK_START in line:
            frame = None  # a new traceback (or one quoted inside a message) starts
            continue
        m = _PYTHON_FRAME.match(line) or _PYTEST_FRAME.match(line)
        if m:
            frame = (m["path"].replace("\\", "/"), m["function"], line.strip())
            continue
        if not line.strip() or line[:1] in " \t":
            continue  # the frame's source line, its ^^^ marks, or spacing
        if frame is not None:
            cls = _BARE_CLASS.match(line.rstrip())
            if cls and _looks_like_class(cls["cls"]):
                found.append(BareRaise(frame[0], frame[1], cls["cls"], frame[2]))
        frame = None  # any other line ends the traceback
    return found


def _looks_like_class(name: str) -> bool:
    # Python's and JAX's exception classes: CamelCase ending in Error or Exception, or the
    # few bare names (KeyboardInterrupt is not one a kernel raises).
    return name[:1].isupper() and (name.endswith(("Error", "Exception")) or name == "StopIteration")


def site_matches(raised: BareRaise, file: str, function: str) -> bool:
    """Whether ``raised`` came from ``file`` (jax's path tail, ``jax/_src/pallas/pallas_call.py``)
    in ``function``: the printed path is the install's, so only its tail is compared."""
    if raised.function != function:
        return False
    path = raised.path
    return path == file or path.endswith("/" + file)
