"""Putting text from error records into Markdown (hovers, ``explain``, the rules page).

Records can come from a workspace, so their text is data, not Markdown: it may not open a link,
an image, an autolink or raw HTML, may not close a code fence early, and may not carry control
characters (terminal escapes in ``pallas-lsp explain``). Links are added only by :func:`link`,
and only to ``https:`` addresses.
"""
from __future__ import annotations

import re

from .records import https_link

# C0 controls except tab and newline, DEL, C1 controls (ESC starts terminal escape sequences).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BACKTICKS = re.compile(r"`+")
# What could start a link, image, autolink, HTML tag or reference definition, and the
# backslash that could undo an escape.
_MARKUP = re.compile(r"[\\\[\]<>]")


def plain(text: str) -> str:
    """``text`` without control characters (tab and newline stay)."""
    return _CONTROL.sub("", text)


def prose(text: str) -> str:
    """Record text as Markdown that shows the same words and can make no link or HTML.
    Inline code spans are kept as they are (nothing inside one is a link)."""
    text = plain(text)
    out: list[str] = []
    pos = 0
    while pos < len(text):
        tick = text.find("`", pos)
        if tick < 0:
            out.append(_MARKUP.sub(r"\\\g<0>", text[pos:]))
            break
        out.append(_MARKUP.sub(r"\\\g<0>", text[pos:tick]))
        run = _BACKTICKS.match(text, tick).group()
        close = _closing_run(text, tick + len(run), len(run))
        if close < 0:  # an unclosed run is literal backticks; what follows is still text
            out.append(run)
            pos = tick + len(run)
        else:
            out.append(text[tick:close + len(run)])
            pos = close + len(run)
    return "".join(out)


def _closing_run(text: str, start: int, length: int) -> int:
    for m in _BACKTICKS.finditer(text, start):
        if len(m.group()) == length:
            return m.start()
    return -1


def code_span(text: str) -> str:
    """``text`` as one inline code span, whatever backticks it holds."""
    text = plain(text).replace("\n", " ")
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(code: str, language: str = "python") -> list[str]:
    """Lines of a fenced code block holding ``code``, with a fence longer than any run of
    backticks inside it (so the code cannot end the block and go on as Markdown)."""
    code = plain(code)
    longest = max((len(m) for m in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + language, code, fence]


def link(label: str, url: str) -> str:
    """``[label](url)`` when ``url`` is a safe https: link, else just the label."""
    safe = https_link(url)
    return f"[{prose(label)}]({safe})" if safe else prose(label)
