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
from itertools import accumulate

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SIGNIFICANT = re.compile(
    r"""(?P<q>'''|\"\"\"|'|")|(?P<c>\#)|(?P<o>[(\[{])|(?P<x>[)\]}])|(?P<bs>\\(?:\r\n|\r|\n))|(?P<nl>\r\n|\r|\n)"""
)
# What the logical-line scanner stops at (quotes, comments, backslashes, line breaks): one
# character class, which re scans for far faster than an alternation of groups (3 ms against
# 17 on a 9,853-line file); brackets are counted between these, in C.
_SPECIAL = re.compile(r"""['"#\\\r\n]""")
_STRING_END = {
    "'": re.compile(r"(?:[^'\\\r\n]|\\(?:\r\n|[\s\S]))*'"),
    '"': re.compile(r'(?:[^"\\\r\n]|\\(?:\r\n|[\s\S]))*"'),
    "'''": re.compile(r"(?:[^'\\]|\\[\s\S]|'(?!''))*'''"),
    '"""': re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""'),
}
# Inside an f-string (PEP 701, Python 3.12): what ends or nests in its literal text, in a
# replacement field's expression, and in a format spec.
_F_LITERAL = {q: re.compile(r"\\|\{\{|\}\}|\{|\}|" + re.escape(q) + (r"|\r\n|\r|\n" if len(q) == 1 else ""))
              for q in ("'", '"', "'''", '"""')}
_F_FIELD = re.compile(r"\'\'\'|\"\"\"|\'|\"|#|[(\[{]|[)\]}]|:|\\(?:\r\n|[\s\S])|\r\n|\r|\n")
_STRING_PREFIX_CHARS = frozenset("rRbBuUfFtT")
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


def _string_prefix(text: str, quote_at: int) -> str:
    """The prefix letters of the string whose quote is at ``quote_at`` (``rf`` in ``rf"..."``)."""
    j = quote_at
    while j > 0 and quote_at - j < 3 and text[j - 1] in _STRING_PREFIX_CHARS:
        j -= 1
    if j < quote_at and j > 0 and (text[j - 1].isalnum() or text[j - 1] == "_"):
        return ""  # the end of a name (``elif"..."`` is not a prefix)
    return text[j:quote_at]


def _is_template(prefix: str) -> bool:
    return "f" in prefix or "F" in prefix or "t" in prefix or "T" in prefix


def scan_fstring(text: str, pos: int, quote: str, raw: bool) -> tuple[int | None, int]:
    """Where the f-string whose body starts at ``pos`` ends (just after its closing quote), as
    Python 3.12 reads it: replacement fields may hold strings in the same quotes, comments and
    line breaks (PEP 701). Also the deepest bracket nesting inside its fields. None when it is
    not terminated, or when a field runs into a line that can only start a statement.
    Iterative: nested f-strings and brackets keep an explicit stack."""
    n = len(text)
    # Frames: ("lit", quote, raw) literal text; ("field", depth) an expression; ("spec",) a
    # format spec (literal text that ends at the field's closing brace).
    stack: list[tuple] = [("lit", quote, raw)]
    depth = 0  # brackets (and open fields) nested inside the f-string
    deepest = 0
    while stack:
        top = stack[-1]
        kind = top[0]
        if kind in ("lit", "spec"):
            q = top[1] if kind == "lit" else _enclosing_quote(stack)
            m = _F_LITERAL[q].search(text, pos)
            if m is None:
                return None, deepest
            tok = m.group()
            pos = m.end()
            if tok == "\\":
                is_raw = top[2] if kind == "lit" else False
                if not is_raw and text.startswith("N{", pos):
                    close = text.find("}", pos)
                    pos = n if close < 0 else close + 1
                elif pos < n and text[pos] != "{":
                    pos += 2 if text.startswith("\r\n", pos) else 1
            elif tok in ("{{", "}}"):
                if kind == "spec" and tok == "}}":  # the spec ends, then its field
                    pos -= 1
                    stack.pop()
                    depth -= 1
                    stack.pop()
                continue
            elif tok == "{":
                depth += 1
                deepest = max(deepest, depth)
                stack.append(("field", 0))
            elif tok == "}":
                if kind == "spec":
                    stack.pop()  # the spec
                    stack.pop()  # its field
                    depth -= 1
            elif tok in ("\r\n", "\r", "\n"):
                return None, deepest  # a single-quoted f-string's text cannot break a line
            else:  # the closing quote
                if kind == "spec":
                    return None, deepest
                stack.pop()
        else:  # a field's expression
            m = _F_FIELD.search(text, pos)
            if m is None:
                return None, deepest
            tok = m.group()
            pos = m.end()
            if tok in ("(", "[", "{"):
                stack[-1] = ("field", top[1] + 1)
                depth += 1
                deepest = max(deepest, depth)
            elif tok in (")", "]", "}"):
                if tok == "}" and top[1] == 0:
                    stack.pop()
                    depth -= 1
                else:
                    stack[-1] = ("field", max(top[1] - 1, 0))
                    depth = max(depth - 1, 0)
            elif tok == ":":
                if top[1] == 0:
                    stack.append(("spec",))
            elif tok == "#":
                eol = _LINE_BREAK.search(text, pos)
                pos = eol.start() if eol else n
            elif tok[0] == "\\":
                pass
            elif tok in ("\r\n", "\r", "\n"):
                if pos < n and _HARD_START.match(text, pos):
                    return None, deepest  # a half-typed field: leave the next statement alone
            else:  # a string inside the field
                prefix = _string_prefix(text, m.start())
                if _is_template(prefix):
                    stack.append(("lit", tok, "r" in prefix or "R" in prefix))
                else:
                    end = _STRING_END[tok].match(text, pos)
                    if end is None:
                        return None, deepest
                    pos = end.end()
    return pos, deepest


class _Ended:
    """Where a scanned f-string ends, read like a regex match's ``end()``."""

    __slots__ = ("_end",)

    def __init__(self, end: int) -> None:
        self._end = end

    def end(self) -> int:
        return self._end


def _enclosing_quote(stack: list[tuple]) -> str:
    for frame in reversed(stack):
        if frame[0] == "lit":
            return frame[1]
    return '"'


def bracket_depth(text: str) -> int:
    """The deepest bracket nesting in a text, as the tokenizer counts it (strings and comments
    skipped, f-string fields counted): Python refuses more than :data:`MAX_BRACKET_DEPTH`."""
    depth = deepest = 0
    pos, n = 0, len(text)
    while pos < n:
        m = _SIGNIFICANT.search(text, pos)
        if m is None:
            break
        kind = m.lastgroup
        pos = m.end()
        if kind == "o":
            depth += 1
            deepest = max(deepest, depth)
        elif kind == "x":
            depth = max(depth - 1, 0)
        elif kind == "c":
            eol = _LINE_BREAK.search(text, pos)
            pos = eol.start() if eol else n
        elif kind == "q":
            quote = m.group("q")
            prefix = _string_prefix(text, m.start())
            if _is_template(prefix):
                end, inner = scan_fstring(text, pos, quote, "r" in prefix or "R" in prefix)
                deepest = max(deepest, depth + inner)
            else:
                got = _STRING_END[quote].match(text, pos)
                end = got.end() if got else None
            if end is None:
                eol = _LINE_BREAK.search(text, pos)
                end = eol.start() if eol else n
            pos = end
    return deepest


MAX_BRACKET_DEPTH = 200  # CPython's tokenizer (MAXLEVEL): "too many nested parentheses" beyond it
_BRACKET = re.compile(r"[()\[\]{}]")
_STEP = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def may_nest_too_deeply(text: str) -> bool:
    """A cheap upper bound (brackets in strings and comments counted too): False means the
    text's brackets certainly nest no deeper than Python allows."""
    if text.count("(") + text.count("[") + text.count("{") <= MAX_BRACKET_DEPTH:
        return False
    return max(accumulate(map(_STEP.__getitem__, _BRACKET.findall(text))), default=0) > MAX_BRACKET_DEPTH


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

    count = text.count
    next_special = _SPECIAL.search
    while pos < n:
        m = next_special(text, pos)
        if m is None:
            break
        # The brackets before it, counted in C: most runs hold a few and no closer that
        # could take the depth below zero (where one could, they are stepped one by one).
        at = m.start()
        if at > pos:
            closes = count(")", pos, at) + count("]", pos, at) + count("}", pos, at)
            if closes <= depth:
                depth += count("(", pos, at) + count("[", pos, at) + count("{", pos, at) - closes
            else:
                for ch in _BRACKET.findall(text, pos, at):
                    depth = depth + 1 if ch in "([{" else depth - 1 if depth > 0 else 0
        ch = text[at]
        if ch == "\n" or ch == "\r":
            pos = at + 2 if ch == "\r" and text.startswith("\n", at + 1) else at + 1
            nxt = line_of(pos)
            if depth == 0:
                if sync is not None and nxt != logical[-1] and sync(nxt):
                    return logical, recovered, nxt
                logical.append(nxt)
            elif pos < n and text[pos] not in " \t\r\n#" and _HARD_START.match(text, pos):
                depth = 0  # an unclosed bracket: recover at a line that must start a statement
                logical.append(nxt)
                recovered.add(nxt)
        elif ch == "\\":
            # A line continuation; a backslash before anything else is passed over.
            after = text[at + 1:at + 3]
            pos = at + (3 if after == "\r\n" else 2 if after[:1] in ("\n", "\r") else 1)
        elif ch == "#":
            eol = _LINE_BREAK.search(text, at)
            pos = eol.start() if eol else n
        else:  # a string
            quote = ch * 3 if text.startswith(ch * 3, at) else ch
            body = at + len(quote)
            if at and text[at - 1] in _STRING_PREFIX_CHARS and _is_template(prefix := _string_prefix(text, at)):
                # An f-string: its fields may hold quotes, comments and line breaks.
                f_end = scan_fstring(text, body, quote, "r" in prefix or "R" in prefix)[0]
                end = None if f_end is None else _Ended(f_end)
            else:
                end = _STRING_END[quote].match(text, body)
            if end is not None:
                pos = end.end()
            else:
                # Unterminated: a single-quoted string ends at the line end; a triple-quoted
                # one is taken to end there too, so the rest of the file still splits.
                eol = _LINE_BREAK.search(text, body)
                pos = eol.start() if eol else n
                if len(quote) == 3:
                    recovered.add(line_of(at))
    return logical, recovered, None


class SplitMemo:
    """Each document's last scan and split, by its key (its path), so that the next version of
    the same document re-scans and re-splits only what changed. Owned by whoever parses (a
    :class:`module.ParseCache`): two engines never see each other's documents."""

    LIMIT = 256  # documents remembered (all are dropped past it: the live ones come back at once)

    def __init__(self) -> None:
        self.lines: dict[str, tuple[str, list[int], list[int], set[int]]] = {}  # logical_lines
        self.splits: dict[str, _Split] = {}  # split_and_count

    def keep_lines(self, key: str, entry: tuple[str, list[int], list[int], set[int]]) -> None:
        if len(self.lines) > self.LIMIT:
            self.lines.clear()
        self.lines[key] = entry

    def keep_split(self, key: str, split: "_Split") -> None:
        if len(self.splits) > self.LIMIT:
            self.splits.clear()
        self.splits[key] = split


_CHUNK = 1 << 12


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix: compared a chunk at a time without copying
    ``a`` (a keystroke's edit leaves most of a long text in common), then bisected in the
    chunk that differs."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a.startswith(b[i:min(i + _CHUNK, n)], i):
        i += _CHUNK
    if i >= n:
        return n
    lo, hi = i, min(i + _CHUNK, n) - 1  # (a[:lo] == b[:lo]; they differ before hi + 1)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[i:mid] == b[i:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix, at most ``limit``; as :func:`_common_prefix`."""
    n = min(len(a), len(b), limit)
    la, lb = len(a), len(b)
    k = 0
    while k < n and a.endswith(b[lb - min(k + _CHUNK, n):lb - k], 0, la - k):
        k += _CHUNK
    if k >= n:
        return n
    lo, hi = k, min(k + _CHUNK, n) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - k] == b[lb - mid:lb - k]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def logical_lines(text: str, starts: list[int], key: str | None = None,
                  memo: SplitMemo | None = None) -> tuple[list[int], set[int]]:
    """:func:`_logical_lines`, re-scanning only the edited region when ``memo`` knows the
    previous text of the same document (``key``): lines before the edit keep their state, and
    the scan stops as soon as it is back in step with the old text after the edit."""
    if memo is None:
        key = None
    prev = memo.lines.get(key) if key and memo is not None else None
    result = None
    if prev is not None:
        old, old_starts, old_logical, old_recovered = prev
        p = _common_prefix(old, text)
        q = _common_suffix(old, text, min(len(old), len(text)) - p)
        if p == len(old) == len(text):
            result = (old_logical, old_recovered)
        else:
            # (Broken text, old or new, is no reason to scan it all: the scanner recovers only at
            # a line that must start a statement, in a clean state, so once it is back at an old
            # logical start in the unchanged tail it goes on exactly as the old scan did.)
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

            def old_index(line: int) -> int:
                """Where ``line`` is in the old logical starts (sorted), or -1."""
                j = bisect.bisect_left(old_logical, line)
                return j if j < len(old_logical) and old_logical[j] == line else -1

            def sync(line: int) -> bool:
                off = starts[line]
                if off < suffix_start or off == 0:
                    return False
                old_line = bisect.bisect_left(old_starts, off + delta_chars)
                # (Not at a line the old scan recovered at: that recovery may or may not hold
                # now, an unclosed bracket before it may be gone; the scan goes on past it.)
                return old_line < len(old_starts) and old_starts[old_line] == off + delta_chars \
                    and old_index(old_line) >= 0 and old_line not in old_recovered

            head = old_logical[:i] if i >= 0 else []
            head_rec = {r for r in old_recovered if r < restart}
            mid, mid_rec, stopped = _logical_lines(text, starts, restart, sync)
            if stopped is None:
                result = (head + mid, head_rec | mid_rec)
            else:
                old_line = bisect.bisect_left(old_starts, starts[stopped] + delta_chars)
                shift = stopped - old_line
                tail = [o + shift for o in old_logical[old_index(old_line):]]
                tail_rec = {r + shift for r in old_recovered if r > old_line}
                result = (head + mid + tail, head_rec | mid_rec | tail_rec)
    if result is None:
        logical, recovered, _ = _logical_lines(text, starts)
        result = (logical, recovered)
    if key and memo is not None:
        memo.keep_lines(key, (text, starts, result[0], result[1]))
    return result


def _is_code(line_text: str) -> bool:
    s = line_text.lstrip(" \t\f")
    return bool(s) and not s.startswith("#") and s not in ("\n", "\r\n", "\r")


def _indent(line_text: str) -> int:
    return len(line_text) - len(line_text.lstrip(" \t\f"))


_CODE_START = re.compile(r"[ \t\f]*(?=[^ \t\f#\r\n])")  # a line's indentation, where code follows it


class _Lines:
    """The physical lines of a text (line breaks kept), sliced on demand."""

    __slots__ = ("text", "starts")

    def __init__(self, text: str, starts: list[int]) -> None:
        self.text = text
        self.starts = starts

    def __len__(self) -> int:
        return len(self.starts)

    def _end(self, i: int) -> int:
        return self.starts[i + 1] if i + 1 < len(self.starts) else len(self.text)

    def code_indent(self, i: int) -> int:
        """The indentation of line ``i``, or -1 when it holds no code (blank, or a comment):
        :func:`_indent` and :func:`_is_code` without slicing the line out."""
        m = _CODE_START.match(self.text, self.starts[i])
        return -1 if m is None else m.end() - self.starts[i]

    def __getitem__(self, i):
        if isinstance(i, slice):
            a, b, _ = i.indices(len(self.starts))
            return [self.text[self.starts[a]:self._end(b - 1)]] if b > a else []
        return self.text[self.starts[i]:self._end(i)]


@dataclass(eq=False)
class _Split:
    """A document's last split, for re-splitting only what its next version changed."""

    text: str
    starts: list[int]
    top: list[int]  # first line (0-based) of each top-level statement
    statements: list[list[Block]]  # the blocks of each statement
    lead: list[Block]  # comments and blank lines before the first statement
    broken: bool = False  # the scanner recovered somewhere (its members are not re-split in place)


def split_blocks(text: str, key: str | None = None, memo: SplitMemo | None = None) -> list[Block]:
    """``key`` names the document (its path) so that the next split of its next version, with
    the same ``memo``, can re-scan only what changed: statements before the edit keep their
    blocks, statements after it keep theirs (moved by the number of lines added or removed)."""
    return split_and_count(text, key, memo)[0]


def split_and_count(text: str, key: str | None = None, memo: SplitMemo | None = None) -> tuple[list[Block], int]:
    """:func:`split_blocks`, and the text's number of lines as the parser counts them."""
    if memo is None:
        key = None  # (nothing to remember it in: split it all)
    prev = memo.splits.get(key) if key and memo is not None else None
    split = None
    if prev is not None and prev.text == text:
        split = prev
    elif prev is not None:
        split = _resplit(prev, text, key, memo)  # type: ignore[arg-type]
    if split is None:
        starts = line_starts(text)
        logical, recovered = logical_lines(text, starts, key, memo)
        split = _split_from(text, starts, logical, recovered, 0, [], [], None)
    if key and memo is not None:
        memo.keep_split(key, split)
    return [b for b in split.lead] + [b for st in split.statements for b in st], len(split.starts)


def _resplit(prev: _Split, text: str, key: str, memo: SplitMemo) -> _Split | None:
    import bisect

    old = prev.text
    p = _common_prefix(old, text)
    q = _common_suffix(old, text, min(len(old), len(text)) - p)
    starts = patched_starts(prev.starts, text, p, len(old) - q, len(text) - q - p)
    logical, recovered = logical_lines(text, starts, key, memo)
    if not prev.top:
        return None  # too little to keep: split it all
    # Restart at the last statement whose first line ends before the edit: everything before
    # it is the same text, and the grouping state there is "a new statement starts".
    i = bisect.bisect_right(prev.top, bisect.bisect_right(prev.starts, p) - 1) - 1
    while i >= 0 and (prev.top[i] + 1 >= len(prev.starts) or prev.starts[prev.top[i] + 1] > p):
        i -= 1
    # A statement before the edit that the old scan had to recover in (an unterminated string)
    # may end differently now that what follows changed: group again from it.
    first_broken = next((k for k in range(i + 1) if any(b.broken for b in prev.statements[k])), None)
    if first_broken is not None:
        i = first_broken
    delta_chars = len(text) - len(old)
    suffix_start = len(text) - q
    old_top_index = {line: j for j, line in enumerate(prev.top)}

    def resume(line: int) -> int | None:
        """The old statement a new statement at ``line`` is, when it lies in the unchanged tail."""
        off = starts[line]
        if off < suffix_start or off == 0:
            return None
        old_line = bisect.bisect_left(prev.starts, off - delta_chars)
        if old_line < len(prev.starts) and prev.starts[old_line] == off - delta_chars:
            return old_top_index.get(old_line)
        return None

    if i < 0:  # the edit is in or before the first statement: group from the start
        return _split_from(text, starts, logical, recovered, 0, [], [], (prev, resume))
    # (Members of a class are re-split in place only in text that is not broken.)
    inside = None if recovered or prev.broken else \
        _resplit_members(prev, text, starts, logical, recovered, p, i, resume, delta_chars, suffix_start)
    if inside is not None:
        return inside
    return _split_from(text, starts, logical, recovered, prev.top[i], prev.top[:i], prev.statements[:i],
                       (prev, resume), prev.lead)


def _resplit_members(prev: _Split, text: str, starts: list[int], logical: list[int], recovered: set[int], p: int,
                     k: int, resume, delta_chars: int, suffix_start: int) -> _Split | None:
    """An edit inside a class split into members: keep the members before it and after it,
    re-split only the members in between (a 3,000-line test class does not re-split)."""
    import bisect

    old_blocks = prev.statements[k]
    if len(old_blocks) < 2 or old_blocks[1].kind != "member":
        return None
    # The last member whose first line ends before the edit.
    j = len(old_blocks) - 1
    while j >= 1 and (old_blocks[j].start_line >= len(prev.starts) or prev.starts[old_blocks[j].start_line] > p):
        j -= 1
    if j < 1:
        return None
    lines = _Lines(text, starts)
    owner = old_blocks[1].owner
    indent = _indent(lines[old_blocks[1].start_line - 1])
    old_members = {b.start_line - 1: x for x, b in enumerate(old_blocks) if x >= 1}
    first = old_blocks[j].start_line - 1
    new_starts: list[int] = []
    prev_decorator = False
    class_end: int | None = None  # the line of the next top-level statement
    resumed: tuple[int, int] | None = None  # (new line, index of the old member block)
    for li in logical[bisect.bisect_left(logical, first):]:
        lt = lines[li]
        if not _is_code(lt):
            continue
        ind = _indent(lt)
        if ind == 0:
            if _CLAUSE.match(lt):
                return None  # a clause after a class body: leave it to the full grouping
            class_end = li
            break
        if ind != indent:
            continue
        stripped = lt.lstrip(" \t\f")
        if new_starts and (prev_decorator or _CLAUSE.match(stripped)):
            prev_decorator = stripped.startswith("@")
            continue
        if new_starts and starts[li] >= suffix_start:
            old_line = bisect.bisect_left(prev.starts, starts[li] - delta_chars)
            if old_line < len(prev.starts) and prev.starts[old_line] == starts[li] - delta_chars \
                    and old_line in old_members:
                resumed = (li, old_members[old_line])
                break
        new_starts.append(li)
        prev_decorator = stripped.startswith("@")
    if not new_starts:
        return None
    stop = resumed[0] if resumed is not None else (class_end if class_end is not None else len(starts))
    blocks = list(old_blocks[:j])
    for x, st in enumerate(new_starts):
        end = (new_starts[x + 1] if x + 1 < len(new_starts) else stop) - 1
        blocks.append(Block(st + 1, end + 1, "".join(lines[st:end + 1]), "member", owner))
    top = prev.top[:k + 1]
    statements = prev.statements[:k]
    if resumed is not None:
        shift = resumed[0] - (old_blocks[resumed[1]].start_line - 1)
        blocks += [_moved(b, shift) for b in old_blocks[resumed[1]:]]
        statements.append(blocks)
        for x in range(k + 1, len(prev.top)):
            top.append(prev.top[x] + shift)
            statements.append([_moved(b, shift) for b in prev.statements[x]])
        return _Split(text, starts, top, statements, prev.lead, False)
    statements.append(blocks)
    if class_end is None:
        return _Split(text, starts, top, statements, prev.lead, False)
    return _split_from(text, starts, logical, recovered, class_end, top, statements, (prev, resume), prev.lead)


def _moved(b: Block, shift: int) -> Block:
    return b if shift == 0 else Block(b.start_line + shift, b.end_line + shift, b.text, b.kind, b.owner, b.broken)


def _split_from(text: str, starts: list[int], logical: list[int], recovered: set[int], first: int,
                top: list[int], statements: list[list[Block]], tail, lead: list[Block] | None = None) -> _Split:
    """Group the logical lines from line ``first`` into top-level statements and split each into
    blocks; ``tail`` (the previous split and a matcher) lets the old statements take over as soon
    as the text is back in step with the old one."""
    import bisect

    lines = _Lines(text, starts)
    top = list(top)
    statements = list(statements)
    kept_from = len(top)
    resumed: tuple[int, int] | None = None  # (new line, old statement index)
    prev_decorator = False
    for li in logical[bisect.bisect_left(logical, first):]:
        if lines.code_indent(li) != 0:
            continue
        lt = lines[li]
        if top and (prev_decorator or _CLAUSE.match(lt)):
            prev_decorator = bool(_DECORATOR.match(lt))
            continue
        if tail is not None and len(top) > kept_from:
            j = tail[1](li)
            if j is not None:
                resumed = (li, j)
                break
        top.append(li)
        prev_decorator = bool(_DECORATOR.match(lt))
    n = len(starts)
    if not top:
        whole = [Block(1, n, text, "module")] if text else []
        return _Split(text, starts, [], [whole] if whole else [], [], bool(recovered))
    if lead is None:
        lead = [Block(1, top[0], "".join(lines[: top[0]]), "module")] if top[0] > 0 else []
    stop = resumed[0] if resumed is not None else n
    for k in range(kept_from, len(top)):
        last = (top[k + 1] if k + 1 < len(top) else stop) - 1
        broken = any(top[k] <= r <= last for r in recovered)
        statements.append(_split_statement(lines, top[k], last, logical, broken))
    if resumed is not None:
        prev, j = tail[0], resumed[1]
        shift = resumed[0] - prev.top[j]
        marks = sorted(recovered)
        for k in range(j, len(prev.top)):
            first_line = prev.top[k] + shift
            last_line = (prev.top[k + 1] + shift if k + 1 < len(prev.top) else n) - 1
            blocks = [_moved(b, shift) for b in prev.statements[k]]
            # A recovery the edit moved to (or away from) this statement's first line changes
            # whether it is broken, and so how it splits: split it again then.
            at = bisect.bisect_left(marks, first_line)
            broken = at < len(marks) and marks[at] <= last_line
            if broken != any(b.broken for b in blocks):
                blocks = _split_statement(lines, first_line, last_line, logical, broken)
            top.append(first_line)
            statements.append(blocks)
    return _Split(text, starts, top, statements, lead, bool(recovered))


def patched_starts(old: list[int], new_text: str, a: int, b: int, inserted: int) -> list[int]:
    """Line starts after replacing old text [a, b) with ``inserted`` characters: the lines
    before the edit keep theirs, the edited region is scanned again, the rest move by the size
    change (a ``\r\n`` split or joined at either end is rescanned too)."""
    import bisect

    lo = max(bisect.bisect_right(old, max(a - 1, 0)) - 1, 0)  # the line holding the character before
    delta = inserted - (b - a)
    hi = bisect.bisect_right(old, b + 1)  # first old start safely after the edit
    head = old[:lo + 1]
    scan_from = head[-1]
    if hi < len(old):
        scan_to = old[hi] + delta
        mid = [m.end() for m in _LINE_BREAK.finditer(new_text, scan_from, scan_to) if m.end() < scan_to]
    else:
        mid = [m.end() for m in _LINE_BREAK.finditer(new_text, scan_from)]
    return head + mid + [x + delta for x in old[hi:]]


def _split_statement(lines: _Lines, first: int, last: int, logical: list[int], broken: bool) -> list[Block]:
    whole = Block(first + 1, last + 1, "".join(lines[first:last + 1]), "module", broken=broken)
    # Find the class header (after decorators) and split its body into members.
    indents = {li: lines.code_indent(li) for li in _between(logical, first, last)}
    body_logical = [li for li, ind in indents.items() if ind >= 0]
    header = next((li for li in body_logical if indents[li] == 0 and not lines[li].startswith("@")), None)
    if header is None or broken:
        return [whole]
    m = re.match(r"class\s+([A-Za-z_][A-Za-z_0-9]*)", lines[header])
    if not m:
        return [whole]
    members = [li for li in body_logical if li > header]
    if not members:
        return [whole]
    indent = indents[members[0]]
    if indent == 0:
        return [whole]
    starts: list[int] = []
    prev_decorator = False
    for li in members:
        if indents[li] != indent:
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
