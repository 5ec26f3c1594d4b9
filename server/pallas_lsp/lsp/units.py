"""What a session keeps about where its units live and who it talks to: file URIs as paths, the
open documents' texts as the workspace worker reads them, and the client's capabilities folded
into booleans once."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable
from urllib.parse import unquote, urlparse

from .positions import UTF16

if TYPE_CHECKING:
    from ..analysis.caches import AnalysisCaches


def uri_to_path(uri: str) -> str | None:
    p = urlparse(uri)
    if p.scheme != "file":
        return None
    path = unquote(p.path)
    if os.name == "nt" and path.startswith("/") and len(path) > 2 and path[2] == ":":
        path = path[1:]
    return path


class OpenTexts:
    """The open documents' texts as the workspace worker reads them: a snapshot the event loop
    takes when it submits a job (Scheduler.submit_workspace). The loop changes the live documents
    map at every keystroke; iterating it from the worker raised "dictionary changed size during
    iteration" and the workspace-wide result was silently lost."""

    def __init__(self, caches: "Callable[[], AnalysisCaches]") -> None:
        self.texts: dict[str, str] = {}  # absolute path -> text; rebound per job, never changed
        self._caches = caches  # the session's caches (their disk texts are kept by stat)

    def read(self, path: str) -> str | None:
        text = self.texts.get(os.path.abspath(path))
        if text is not None:
            return text
        return self._caches().disk.read(path)


@dataclass
class Caps:
    """Client capabilities folded into plain booleans once."""

    pull: bool = False
    related: bool = False
    code_description: bool = False
    refresh: bool = False
    configuration: bool = False
    watch_dynamic: bool = False
    code_lens_refresh: bool = False
    show_document: bool = False
    encoding: str = UTF16


__all__ = ["Caps", "OpenTexts", "uri_to_path"]
