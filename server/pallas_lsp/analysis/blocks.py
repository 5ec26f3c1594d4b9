"""Split Python source into independently parseable blocks.

A block is a top-level statement (with its decorators and its ``else``/``except``
clauses), or, inside a top-level class, one class member. Each block is parsed on
its own and cached by its text, so an edit re-parses only the block it touches.

The splitter is a small scanner that tracks strings, comments and brackets; it
never fails. Where the text is broken (an unclosed bracket or triple-quoted
string) it recovers at the next line that can only start a statement, so one
half-typed block does not swallow the rest of the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SIGNIFICANT = re.compile(
    r"""(?P<q>'''|\"\"\"|'|")|(?P<c>\#)|(?P<o>[(\[{])|(?P<x>[)\]}])|(?P<bs>\\(?:\r\n|\r|\n))|(?P<nl>\r\n|\r|\n)"""
)
_STRING_END = {
    "'": re.compile(r"(?:[^'\\\r\n]|\\(?:\r\n|[\s\S]))*'"),
    '"': re.compile(r'(?:[^"\\\r\n]|\\(?:\r\n|[\s\S]))*"'),
    "'''": re.compile(r"(?:[^'\\]|\\[\s\S]|'(?!''))*'''"),
    '"""': re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""'),
}
# A line at column 0 starting like this cannot be inside an expression: recover there.
_HARD_START = re.compile(r"(?:async[ \t]+def|def|class|import)\b|from[ \t]+\S+[ \t]+import\b|@")
_CLAUSE = re.compile(r"(?:else|elif|except|finally)\b")
_DECORATOR = re.compile(r"@")


@dataclass(frozen=True)
class Block:
    start_line: int  # 1-based line of the block's first line in the module
    end_line: int  # 1-based, inclusive
    text: str  # the block's own lines, indentation kept
    kind: str  # "module" (a top-level statement) or "member" (a member of class ``owner``)
    owner: str = ""  # the class name, for members
    broken: bool = False  # the scanner had to recover inside this block

    @property
    def wrapper(self) -> str:
        """Text put before ``text`` so that it parses alone (members keep their indentation)."""
        return "class _:\n" if self.kind == "member" else ""


def line_starts(text: str) -> list[int]:
    """Character offset of the start of every line (LSP line breaks: \\n, \\r\\n, \\r)."""
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
    return starts


def _logical_lines(text: str, starts: list[int], first: int = 0,
                   sync=None) -> tuple[list[int], set[int], int | None]:
    """0-based indices of the physical lines that begin a logical line, and the indices
    of lines at which the scanner recovered from a broken construct. Scanning starts at line
    ``first`` (which must begin a logical line); ``sync(line)`` may stop it at a clean logical
    line start, whose index is then returned."""
    logical = [first]
    recovered: set[int] = set()
    n = len(text)
    pos = starts[first] if first < len(starts) else n
    depth = 0
    line = first
    # Map a character offset to its line index lazily: offsets only grow.
    nlines = len(starts)

    def line_of(offset: int) -> int:
        nonlocal line
        while line + 1 < nlines and starts[line + 1] <= offset:
            line += 1
        return line

    while pos < n:
        m = _SIGNIFICANT.search(text, pos)
        if m is None:
            break
        kind = m.lastgroup
        if kind == "nl":
            pos = m.end()
            nxt = line_of(pos)
            if depth == 0:
                if sync is not None and nxt != logical[-1] and sync(nxt):
                    return logical, recovered, nxt
                logical.append(nxt)
            elif pos < n and text[pos] not in " \t\r\n#" and _HARD_START.match(text, pos):
                depth = 0  # an unclosed bracket: recover at a line that must start a statement
                logical.append(nxt)
                recovered.add(nxt)
        elif kind == "bs":
            pos = m.end()
        elif kind == "c":
            eol = _LINE_BREAK.search(text, m.end())
            pos = eol.start() if eol else n
        elif kind == "o":
            depth += 1
            pos = m.end()
        elif kind == "x":
            depth = depth - 1 if depth > 0 else 0
            pos = m.end()
        else:  # a string
            quote = m.group("q")
            end = _STRING_END[quote].match(text, m.end())
            if end is not None:
                pos = end.end()
            else:
                # Unterminated: a single-quoted string ends at the line end; a triple-quoted
                # one is taken to end there too, so the rest of the file still splits.
                eol = _LINE_BREAK.search(text, m.end())
                pos = eol.start() if eol else n
                if len(quote) == 3:
                    recovered.add(line_of(m.start()))
    return logical, recovered, None


_PREVIOUS: dict[str, tuple[str, list[int], list[int], set[int]]] = {}


def _common_prefix(a: str, b: str) -> int:
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:  # binary search with C-speed slice comparisons
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    lo, hi = 0, min(len(a), len(b), limit)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def logical_lines(text: str, starts: list[int], key: str | None = None) -> tuple[list[int], set[int]]:
    """:func:`_logical_lines`, re-scanning only the edited region when the previous text of the
    same document (``key``) is known: lines before the edit keep their state, and the scan stops
    as soon as it is back in step with the old text after the edit."""
    prev = _PREVIOUS.get(key) if key else None
    result = None
    if prev is not None:
        old, old_starts, old_logical, old_recovered = prev
        p = _common_prefix(old, text)
        q = _common_suffix(old, text, min(len(old), len(text)) - p)
        if p == len(old) == len(text):
            result = (old_logical, old_recovered)
        elif old_recovered:
            result = None  # broken text: recovery depends on what follows; scan it all
        else:
            import bisect

            first_changed = bisect.bisect_right(starts, p) - 1
            # Restart at the last clean logical start before the edit (identical text up to it).
            i = bisect.bisect_right(old_logical, first_changed) - 1
            while i > 0 and (old_logical[i] in old_recovered or old_starts[old_logical[i]] > p):
                i -= 1
            if any(r <= first_changed for r in old_recovered):
                i = 0  # an unterminated string before the edit may find its end in it: rescan
            restart = old_logical[i] if i >= 0 else 0
            delta_chars = len(old) - len(text)
            suffix_start = len(text) - q
            old_index = {o: j for j, o in enumerate(old_logical)}

            def sync(line: int) -> bool:
                off = starts[line]
                if off < suffix_start or off == 0:
                    return False
                old_line = bisect.bisect_left(old_starts, off + delta_chars)
                return old_line < len(old_starts) and old_starts[old_line] == off + delta_chars \
                    and old_line in old_index

            head = old_logical[:i] if i >= 0 else []
            head_rec = {r for r in old_recovered if r < restart}
            mid, mid_rec, stopped = _logical_lines(text, starts, restart, sync)
            if mid_rec:
                result = None  # the edit broke something: scan it all
            elif stopped is None:
                result = (head + mid, head_rec | mid_rec)
            else:
                old_line = bisect.bisect_left(old_starts, starts[stopped] + delta_chars)
                shift = stopped - old_line
                tail = [o + shift for o in old_logical[old_index[old_line]:]]
                tail_rec = {r + shift for r in old_recovered if r > old_line}  # (the sync line itself is clean here)
                result = (head + mid + tail, head_rec | mid_rec | tail_rec)
    if result is None:
        logical, recovered, _ = _logical_lines(text, starts)
        result = (logical, recovered)
    if key:
        if len(_PREVIOUS) > 256:
            _PREVIOUS.clear()
        _PREVIOUS[key] = (text, starts, result[0], result[1])
    return result


def _is_code(line_text: str) -> bool:
    s = line_text.lstrip(" \t\f")
    return bool(s) and not s.startswith("#") and s not in ("\n", "\r\n", "\r")


def _indent(line_text: str) -> int:
    return len(line_text) - len(line_text.lstrip(" \t\f"))


def split_blocks(text: str, key: str | None = None) -> list[Block]:
    """``key`` names the document (its path) so that the next split of its next version can
    re-scan only what changed."""
    starts = line_starts(text)
    lines = [text[starts[i]:starts[i + 1]] if i + 1 < len(starts) else text[starts[i]:] for i in range(len(starts))]
    logical, recovered = logical_lines(text, starts, key)

    # Group top-level logical lines into statements.
    top: list[int] = []  # first physical line (0-based) of each top-level statement
    prev_decorator = False
    for li in logical:
        lt = lines[li]
        if not _is_code(lt) or _indent(lt) != 0:
            continue
        if top and (prev_decorator or _CLAUSE.match(lt)):
            prev_decorator = bool(_DECORATOR.match(lt))
            continue
        top.append(li)
        prev_decorator = bool(_DECORATOR.match(lt))
    if not top:
        return [Block(1, len(lines), text, "module")] if text else []
    blocks: list[Block] = []
    if top[0] > 0:  # leading comments and blank lines
        blocks.append(Block(1, top[0], "".join(lines[: top[0]]), "module"))
    logical_set = logical
    for i, first in enumerate(top):
        last = (top[i + 1] if i + 1 < len(top) else len(lines)) - 1
        broken = any(first <= r <= last for r in recovered)
        blocks.extend(_split_statement(lines, first, last, logical_set, broken))
    return blocks


def _split_statement(lines: list[str], first: int, last: int, logical: list[int], broken: bool) -> list[Block]:
    whole = Block(first + 1, last + 1, "".join(lines[first:last + 1]), "module", broken=broken)
    # Find the class header (after decorators) and split its body into members.
    body_logical = [li for li in _between(logical, first, last) if _is_code(lines[li])]
    header = next((li for li in body_logical if _indent(lines[li]) == 0 and not lines[li].startswith("@")), None)
    if header is None or broken:
        return [whole]
    m = re.match(r"class\s+([A-Za-z_][A-Za-z_0-9]*)", lines[header])
    if not m:
        return [whole]
    members = [li for li in body_logical if li > header]
    if not members:
        return [whole]
    indent = _indent(lines[members[0]])
    if indent == 0:
        return [whole]
    starts: list[int] = []
    prev_decorator = False
    for li in members:
        if _indent(lines[li]) != indent:
            continue
        stripped = lines[li].lstrip(" \t\f")
        if starts and (prev_decorator or _CLAUSE.match(stripped)):
            prev_decorator = stripped.startswith("@")
            continue
        starts.append(li)
        prev_decorator = stripped.startswith("@")
    out = [Block(first + 1, starts[0], "".join(lines[first:starts[0]]) + " " * indent + "pass\n", "module", m.group(1))]
    for i, s in enumerate(starts):
        e = (starts[i + 1] if i + 1 < len(starts) else last + 1) - 1
        out.append(Block(s + 1, e + 1, "".join(lines[s:e + 1]), "member", m.group(1)))
    return out


def _between(sorted_lines: list[int], lo: int, hi: int) -> list[int]:
    import bisect

    i = bisect.bisect_left(sorted_lines, lo)
    j = bisect.bisect_right(sorted_lines, hi)
    return sorted_lines[i:j]


def split_loose(block: Block) -> list[Block]:
    """Re-split a block that does not parse at every line that starts at column 0 (or at the
    member indentation), ignoring brackets and strings: the parts after a half-typed
    ``foo(`` still parse on their own."""
    lines = block.text.splitlines(keepends=True)
    if len(lines) < 2:
        return []
    indent = _indent(lines[0])
    cuts = [0]
    prev_decorator = lines[0].lstrip().startswith("@")
    for i in range(1, len(lines)):
        lt = lines[i]
        if not _is_code(lt) or _indent(lt) != indent:
            continue
        stripped = lt.lstrip(" \t\f")
        if prev_decorator or _CLAUSE.match(stripped):
            prev_decorator = stripped.startswith("@")
            continue
        cuts.append(i)
        prev_decorator = stripped.startswith("@")
    if len(cuts) < 2:
        return []
    out = []
    for j, c in enumerate(cuts):
        end = cuts[j + 1] if j + 1 < len(cuts) else len(lines)
        out.append(Block(block.start_line + c, block.start_line + end - 1, "".join(lines[c:end]), block.kind,
                         block.owner, broken=True))
    return out
