"""A module as the analysis sees it: cached block parses stitched into one index.

Parsing is per block (see :mod:`.blocks`) and cached by the block's text, so an
edit costs one block's parse; this module only re-stitches the cached facts and
adds each block's line offset.
"""
from __future__ import annotations

import ast
import re
import sys
import unicodedata
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock
from typing import Callable, Iterator

from .blocks import (MAX_BRACKET_DEPTH, Block, SplitMemo, bracket_depth, may_nest_too_deeply, line_starts,
                     logical_lines, split_and_count, split_loose)
from .scopes import Binding, CallSite, Scope, index_module
from .suppression import may_hold_suppression

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_WORD = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class Span:
    """1-based lines; 0-based columns in code points."""

    line: int
    col: int
    end_line: int
    end_col: int

    def contains(self, line: int, col: int) -> bool:
        if (line, col) < (self.line, self.col):
            return False
        return (line, col) <= (self.end_line, self.end_col)


@dataclass(frozen=True)
class SyntaxProblem:
    message: str
    span: Span


@dataclass(eq=False)
class BlockParse:
    text: str
    kind: str
    wrapper_lines: int
    module: ast.Module | None
    root: Scope | None
    error: tuple[str, int, int] | None  # message, relative line (1-based, wrapper included), column
    sites: dict = field(default_factory=dict)  # id(ast.Call) -> CallSite, for this block
    source: str = ""  # what was parsed (wrapper + text, newer syntax blanked out)
    newer_syntax: bool = False  # valid Python the running interpreter's ast cannot read
    too_deep: bool = False  # valid, but nested deeper than the analysis follows (no facts)
    path: str | None = None  # the module it belongs to (blocks are never shared across modules)
    scope_of_node: dict = field(default_factory=dict)  # id(def/lambda/class node) -> its Scope
    _lines: list[str] | None = None
    facts: dict = field(default_factory=dict)  # per-block facts derived on demand (see fact)

    def fact(self, key: str, compute: Callable[["BlockParse"], object]):
        """``compute(self)``, once per block parse: the block's text never changes, so neither
        does anything derived from it alone (indices, word sets)."""
        if key not in self.facts:
            self.facts[key] = compute(self)
        return self.facts[key]

    def scopes(self) -> Iterator[Scope]:
        return self.root.walk() if self.root is not None else iter(())

    def calls_by_callee(self) -> dict:
        """callee's last name -> the block's calls of it (every scope, in walk order)."""
        return self.fact("calls_by_callee", _calls_by_callee)

    def calls_named(self, name: str) -> list:
        """The block's calls whose callee is called ``name`` or that pass ``name`` along."""
        return self.fact("calls_named", _calls_by_name).get(name, [])

    def decorators(self) -> list:
        return self.fact("decorators", lambda bp: [d for s in bp.scopes() for d in s.decorators])

    @property
    def mentions(self) -> frozenset:
        """Every identifier-like word of the block (a superset of the names it binds, reads,
        calls or defines): what an edit that adds or removes this block can change."""
        return self.fact("mentions", lambda bp: identifier_words(bp.source or bp.text))

    @property
    def bound_names(self) -> frozenset:
        """The names the block binds at module level, and the members it gives classes."""
        return self.fact("bound_names", _bound_names)

    def line(self, rel: int) -> str:
        """Line ``rel`` (1-based, wrapper included) of the parsed source, without its break."""
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self.source)
        return self._lines[rel - 1] if 0 < rel <= len(self._lines) else ""

    def col(self, rel_line: int, byte_col: int) -> int:
        """ast columns are UTF-8 byte offsets: convert to code points."""
        line = self.line(rel_line)
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8", errors="surrogatepass")[:byte_col].decode("utf-8", errors="ignore"))


# (path, kind, owner, text, occurrence): the same member text in two classes, or a statement
# written twice, still gets a parse of its own that stays the same object while its text lives.
_Key = tuple[str, str, str, str, int]
_TYPE_PARAMS = re.compile(r"((?:^|\n)[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+[A-Za-z_][A-Za-z_0-9]*)\[")
_TYPE_ALIAS = re.compile(r"(?m)^([ \t]*)type([ \t]+)([A-Za-z_][A-Za-z_0-9]*)")


def identifier_words(text: str) -> frozenset[str]:
    """The identifier-like words of a text, as Python reads identifiers (NFKC-normalised:
    𝐫𝐮𝐧 is run)."""
    words = _WORD.findall(text)
    if not text.isascii():
        words = [unicodedata.normalize("NFKC", w) for w in words]
    return frozenset(words)


def _calls_by_callee(bp: BlockParse) -> dict[str, list[CallSite]]:
    idx: dict[str, list[CallSite]] = {}
    for s in bp.scopes():
        for cs in s.calls:
            idx.setdefault(cs.callee_last, []).append(cs)
    return idx


def _calls_by_name(bp: BlockParse) -> dict[str, list[CallSite]]:
    idx: dict[str, list[CallSite]] = {}
    for s in bp.scopes():
        for cs in s.calls:
            if cs.callee_last:
                idx.setdefault(cs.callee_last, []).append(cs)
            for a in cs.arg_names:
                if a != cs.callee_last:
                    idx.setdefault(a, []).append(cs)
    return idx


def _bound_names(bp: BlockParse) -> frozenset[str]:
    out: set[str] = set()
    if bp.root is not None:
        if bp.kind != "member":  # (a member's wrapper class binds nothing real)
            out.update(bp.root.bindings)
        for child in bp.root.children:
            if child.kind == "class":
                out.update(child.bindings)
    return frozenset(out)


def _blank_newer_syntax(source: str) -> str:
    """PEP 695 generics, blanked out with spaces (positions unchanged), so that an older
    interpreter's ast reads jax's own newer files."""
    out = source
    for m in list(_TYPE_PARAMS.finditer(source))[::-1]:
        i = m.end() - 1
        depth = 0
        j = i
        while j < len(out):
            if out[j] == "[":
                depth += 1
            elif out[j] == "]":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j < len(out):
            out = out[:i] + " " * (j - i + 1) + out[j + 1:]
    return _TYPE_ALIAS.sub(lambda m: m.group(1) + m.group(3) + " " * (len(m.group(2)) + 4), out)


# What reaches libcst (a native parser that recurses without a bound, and is slow on long operator
# chains: 2,000 ``+`` cost it 9 s) is bounded first; beyond these, the stdlib parser's verdict
# stands. The stdlib parser bounds itself (nesting, recursion, indentation).
LIBCST_MAX_CHARS = 100_000
LIBCST_MAX_CHAIN = 300  # operators, dots and brackets in one logical line
_LIBCST_STACK_BYTES = 256 * 1024 * 1024  # its own thread: worker threads may have small stacks
_CHAIN_TOKEN = re.compile(r"[-+*/%@&|^~<>.(\[]|\b(?:if|else|lambda|and|or|not|await|in|is)\b")
_LEXICAL_ERROR = re.compile(r"was never closed|^unmatched '|does not match opening parenthesis|"
                            r"^unterminated (?:triple-quoted )?string literal")
_TEMPLATE_STRING = re.compile(r"(?<![\w])(?:[rR]?[fFtT]|[fFtT][rR])['\"]")
_NESTING_MESSAGES = ("too many levels of indentation", "too many statically nested blocks")


def libcst_may_read(source: str) -> bool:
    """Whether libcst may be asked about ``source``: small enough, brackets nested no deeper
    than Python allows, and no logical line with an operator chain long enough to make libcst's
    parser slow (it is superlinear in a chain's length)."""
    if len(source) > LIBCST_MAX_CHARS or may_nest_too_deeply(source) and bracket_depth(source) > MAX_BRACKET_DEPTH:
        return False
    if len(_CHAIN_TOKEN.findall(source)) <= LIBCST_MAX_CHAIN:
        return True
    starts = line_starts(source)
    logical = logical_lines(source, starts)[0] + [len(starts)]
    for a, b in zip(logical, logical[1:]):
        end = starts[b] if b < len(starts) else len(source)
        if len(_CHAIN_TOKEN.findall(source, starts[a], end)) > LIBCST_MAX_CHAIN:
            return False
    return True


def _libcst_accepts(source: str) -> bool:
    """libcst parses syntax newer than the running Python: it is the authority on whether a
    block that ast rejects is valid (asked only within :func:`libcst_may_read`'s bounds)."""
    verdict: list[bool] = []

    def parse() -> None:
        try:
            import libcst

            libcst.parse_module(source)
            verdict.append(True)
        except Exception:  # noqa: BLE001 - any failure means: not valid
            verdict.append(False)

    _on_big_stack(parse)
    return bool(verdict and verdict[0])


_STACK_LOCK = Lock()
# Threads that analyse: CPython's own parser needs about 1 MiB at its nesting limits, and some
# platforms give threads 512 KiB (macOS) or less; the main thread has 8 MiB.
ANALYSIS_STACK_BYTES = 32 * 1024 * 1024


def start_thread(target: Callable[[], None], name: str, stack_bytes: int = ANALYSIS_STACK_BYTES):
    """A started daemon thread with a stack of ``stack_bytes`` (whatever the platform's default
    is); with the default stack when the system refuses that size."""
    import threading

    with _STACK_LOCK:  # (stack_size is process-wide: set it only around this start)
        try:
            old = threading.stack_size(stack_bytes)
        except (ValueError, RuntimeError):
            old = None
        try:
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
        except RuntimeError:
            if old is None:
                raise
            threading.stack_size(old)  # (no room for that stack under a memory limit)
            old = None
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
        finally:
            if old is not None:
                threading.stack_size(old)
    return t


def _on_big_stack(fn: Callable[[], None]) -> None:
    """Run ``fn`` in a thread of its own with a stack large enough for a native parser's
    recursion, whatever thread the caller is (the server's worker, a ``check -j`` process);
    in the caller's thread when no such thread can be made (a tight memory limit)."""
    try:
        t = start_thread(fn, "pallas-libcst", _LIBCST_STACK_BYTES)
    except (RuntimeError, MemoryError):
        fn()
        return
    t.join()


def _parse(block: Block, path: str | None = None) -> BlockParse:
    bp = _parse_text(block)
    bp.path = path
    return bp


_ON_LINE = re.compile(r"\bon line (\d+)\b")


def _file_lines(message: str, offset: int) -> str:
    """Python's message names other lines of the parsed block ("after 'with' statement on line
    3"); the block was parsed on its own (parses are cached by text), so count them in the file."""
    return _ON_LINE.sub(lambda m: f"on line {int(m.group(1)) + offset}", message) if offset else message


def _syntax_error(block: Block, wrapper_lines: int, source: str, message: str, line: int, col: int) -> BlockParse:
    return BlockParse(block.text, block.kind, wrapper_lines, None, None, (message, line, col), source=source)


def _too_deep(depth: int) -> str:
    return f"nested too deeply to analyse ({depth} levels of brackets; Python allows {MAX_BRACKET_DEPTH})"


def _deepest_at(source: str, wrapper_lines: int) -> tuple[int, int]:
    """The line and column (relative, wrapper included) where the brackets pass Python's limit."""
    from itertools import accumulate

    depth_after = accumulate(1 if c in "([{" else -1 if c in ")]}" else 0 for c in source)
    at = next((i for i, d in enumerate(depth_after) if d > MAX_BRACKET_DEPTH), 0)
    line = source.count("\n", 0, at) + 1
    col = at - (source.rfind("\n", 0, at) + 1)
    return max(line, 1 + wrapper_lines), col


def _parse_text(block: Block) -> BlockParse:
    source = block.wrapper + block.text
    wrapper_lines = block.wrapper.count("\n")
    newer = False
    if may_nest_too_deeply(source):  # (CPython's parser takes 400 MB to refuse 20,000 brackets)
        depth = bracket_depth(source)
        if depth > MAX_BRACKET_DEPTH:
            return _syntax_error(block, wrapper_lines, source, _too_deep(depth), *_deepest_at(source, wrapper_lines))
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        tree = None
        msg = exc.msg or "invalid syntax"
        line = exc.lineno or (1 + wrapper_lines)
        col = max((exc.offset or 1) - 1, 0)
        if "too many nested parentheses" in msg:  # (no Python accepts it: libcst is not asked)
            return _syntax_error(block, wrapper_lines, source, _too_deep(bracket_depth(source)), line, col)
        if any(m in msg for m in _NESTING_MESSAGES):
            return _syntax_error(block, wrapper_lines, source, msg, line, col)
        if _LEXICAL_ERROR.search(msg) and not _TEMPLATE_STRING.search(source):
            # (A bracket or string the tokenizer cannot close: newer Pythons tokenize these
            # alike, unless an f- or t-string's fields hold quotes (PEP 701, PEP 750). None
            # here, so it is an error for every Python and libcst is not asked.)
            return _syntax_error(block, wrapper_lines, source, msg, line, col)
        if isinstance(exc, IndentationError):
            # (No newer syntax explains one: the tokenizer would have stopped at a string it
            # reads differently first. libcst is not asked, the pieces of a half-typed block
            # after its break are mostly this.)
            return _syntax_error(block, wrapper_lines, source, msg, line, col)
        blanked = _blank_newer_syntax(source)
        readable = libcst_may_read(source)
        if not readable:  # (say so: newer Python might accept what this interpreter refuses)
            msg += (f" (Python {sys.version_info[0]}.{sys.version_info[1]}'s parser;"
                    " too large to check against newer syntax)")
        if (readable and _libcst_accepts(source)) or (not readable and blanked != source):
            # (Too large for libcst but readable once PEP 695 generics are blanked: take that.)
            try:
                tree = ast.parse(blanked)
                source, newer = blanked, True
            except (SyntaxError, RecursionError, MemoryError, ValueError):
                if not readable:
                    return _syntax_error(block, wrapper_lines, source, msg, line, col)
                # Valid, but not something this interpreter can index: no facts, no error.
                return BlockParse(block.text, block.kind, wrapper_lines, None, None, None, source=source,
                                  newer_syntax=True)
        if tree is None:
            return _syntax_error(block, wrapper_lines, source, msg, line, col)
    except (RecursionError, MemoryError) as exc:  # Python's parser gave up on the nesting
        what = "recursion" if isinstance(exc, RecursionError) else "parser stack"
        return _syntax_error(block, wrapper_lines, source, f"nested too deeply to analyse (more than Python's "
                             f"{what} allows)", 1 + wrapper_lines, 0)
    except (ValueError, TypeError) as exc:  # pathological input
        return _syntax_error(block, wrapper_lines, source, f"cannot parse: {type(exc).__name__}", 1 + wrapper_lines, 0)
    bp = BlockParse(block.text, block.kind, wrapper_lines, tree, None, None, source=source, newer_syntax=newer)
    try:
        bp.root = index_module(tree, bp)
    except RecursionError:
        # Python compiles it, but it is nested deeper than the analysis follows: no facts for
        # this block, and no false syntax error either.
        return BlockParse(block.text, block.kind, wrapper_lines, None, None, None, source=source,
                          newer_syntax=newer, too_deep=True)
    for s in bp.root.walk():
        for cs in s.calls:
            bp.sites[id(cs.node)] = cs
        if s.node is not None and s.kind != "module":
            bp.scope_of_node[id(s.node)] = s
    return bp


def quiet_compiler_warnings() -> None:
    """Warnings the compiler raises about the user's code (invalid escapes, `is` with a literal)
    are not ours to print. Installed by each :class:`ParseCache` (idempotent: a filter already
    there is not added again), not around every parse: a catch_warnings() per parse costs more
    than the parse, and it is not thread-safe."""
    for category, message in ((SyntaxWarning, ""), (DeprecationWarning, "invalid escape sequence")):
        if not any(f[0] == "ignore" and f[2] is category and (f[1].pattern if f[1] else "") == message
                   for f in warnings.filters):
            warnings.filterwarnings("ignore", category=category, message=message)


class ParseCache:
    """Block parses keyed by (path, kind, owner, text, occurrence), and each document's last split
    (:class:`blocks.SplitMemo`): what lets an edit re-parse one block. Owned by an Engine or a
    Program (the language server's engine hands its own to its workspace program, so both read
    the same parses); never shared between engines by accident. Thread-safe."""

    LIMIT = 50_000  # parses kept beyond the blocks of the live module texts
    # The blocks of the live texts (retain_only) and of the texts being indexed now are never what
    # the limit evicts: a 65,000-statement file thrashed a fixed-size cache, and every edit then
    # re-parsed the whole file (7-13 s).
    ROOM_LIMIT = 1_000_000  # (a bound all the same)

    def __init__(self) -> None:
        self.parses: "OrderedDict[_Key, BlockParse]" = OrderedDict()
        self.by_path: dict[str, set[_Key]] = {}  # the keys of each module's live text
        self.splits = SplitMemo()
        self.live_blocks = 0  # blocks of the live texts
        self.indexing_blocks = 0  # blocks of the texts being indexed now
        self._lock = Lock()
        quiet_compiler_warnings()

    def parse(self, block: Block, path: str | None = None, occurrence: int = 0) -> BlockParse:
        key = block_key(block, path, occurrence)
        with self._lock:
            hit = self.parses.get(key)
            if hit is not None:
                self.parses.move_to_end(key)
                return hit
        bp = _parse(block, path)
        with self._lock:
            self.parses[key] = bp
            limit = self.LIMIT + min(self.live_blocks + self.indexing_blocks, self.ROOM_LIMIT)
            while len(self.parses) > limit:
                self.parses.popitem(last=False)
        return bp

    def retain_only(self, path: str | None, keys: set[_Key]) -> None:
        """Drop a module's cached blocks that its current text no longer has: the cache holds the
        live texts of the modules, not every text they ever had (memory stays flat while typing)."""
        if not path:
            return
        with self._lock:
            old = self.by_path.get(path, set())
            for key in old - keys:
                self.parses.pop(key, None)
            self.by_path[path] = keys
            self.live_blocks += len(keys) - len(old)

    def indexing(self, blocks: int) -> None:
        """``blocks`` more (or, negative, fewer) blocks are being indexed now: room for them."""
        with self._lock:
            self.indexing_blocks += blocks

    def clear(self) -> None:
        with self._lock:
            self.parses.clear()
            self.by_path.clear()
            self.live_blocks = 0
            self.splits = SplitMemo()


def block_key(block: Block, path: str | None, occurrence: int = 0) -> _Key:
    return (path or "", block.kind, block.owner, block.text, occurrence)


@dataclass(eq=False)
class ClassInfo:
    name: str
    members: dict[str, list[Binding]] = field(default_factory=dict)
    scopes: list[Scope] = field(default_factory=list)


class ModuleIndex:
    """The facts of one module text, with absolute positions."""

    def __init__(self, text: str, path: str | None = None, program: object = None,
                 cache: ParseCache | None = None) -> None:
        """``cache``: the owner's parses and splits (an edit then re-parses only the blocks it
        changed); without one, everything is parsed afresh and nothing is kept."""
        self.program = program  # the workspace, for spans of nodes in other modules
        self.cache = cache = cache if cache is not None else ParseCache()
        self._lines: list[str] | None = None
        self.text = text
        self.path = path
        self.blocks, self.line_count = split_and_count(text, path, cache.splits)
        self.parses: list[tuple[Block, BlockParse]] = []
        self._offset: dict[int, int] = {}
        self.syntax_errors: list[SyntaxProblem] = []
        self.scope = Scope("module", "<module>", None, None, None)
        self.classes: dict[str, ClassInfo] = {}
        self.deps = None  # an incremental.Deps recording which blocks positions were taken in
        self._block_of: dict[int, tuple[Block, BlockParse]] | None = None
        self._occurrences: dict[tuple[str, str, str], int] = {}
        keys: set = set()
        cache.indexing(len(self.blocks))
        try:
            for block in self.blocks:
                bp = self._add(block, keys)
                if bp.error is not None:
                    msg, line, col = bp.error
                    offset = self._offset[id(bp)]
                    line = max(line + offset, block.start_line)
                    msg = _file_lines(msg, offset)
                    self.syntax_errors.append(SyntaxProblem(msg, Span(line, col, line, col + 1)))
                    # Keep what still parses after a half-typed construct.
                    for part in split_loose(block)[1:]:
                        self._add(part, keys)
            cache.retain_only(path, keys)
        finally:
            cache.indexing(-len(self.blocks))

    def _add(self, block: Block, keys: set) -> BlockParse:
        seen = (block.kind, block.owner, block.text)
        n = self._occurrences.get(seen, 0)
        self._occurrences[seen] = n + 1
        keys.add(block_key(block, self.path, n))
        bp = self.cache.parse(block, self.path, n)
        self.parses.append((block, bp))
        self._offset[id(bp)] = block.start_line - 1 - bp.wrapper_lines
        if bp.error is None and bp.root is not None:  # (no root: valid newer syntax, nothing indexed)
            if block.kind == "member":
                self._merge_member(block, bp)
            else:
                self._merge_module(bp)
        return bp

    # --- stitching ---------------------------------------------------------------------
    def _merge_module(self, bp: BlockParse) -> None:
        root, m = bp.root, self.scope
        assert root is not None
        # Only what lookups need module-wide: names and class members. Calls, decorators and
        # scopes stay in their blocks (read through the per-block indices).
        for name, bs in root.bindings.items():
            got = m.bindings.get(name)
            if got is None:
                m.bindings[name] = list(bs)
            else:
                got.extend(bs)
        for child in root.children:
            if child.kind == "class":
                info = self.classes.setdefault(child.name, ClassInfo(child.name))
                info.scopes.append(child)
                for name, bs in child.bindings.items():
                    info.members.setdefault(name, []).extend(bs)

    def _merge_member(self, block: Block, bp: BlockParse) -> None:
        assert bp.root is not None
        wrapper_class = bp.fact("wrapper_class",
                                lambda bp: next((c for c in bp.root.children if c.kind == "class"), None))
        if wrapper_class is None:
            return
        info = self.classes.setdefault(block.owner, ClassInfo(block.owner))
        wrapper_class.name = block.owner
        info.scopes.append(wrapper_class)
        for name, bs in wrapper_class.bindings.items():
            info.members.setdefault(name, []).extend(bs)

    # --- positions ---------------------------------------------------------------------
    def offset_of(self, scope_or_block: object) -> int:
        bp = scope_or_block.block if isinstance(scope_or_block, Scope) else scope_or_block
        if id(bp) not in self._offset and bp is not None:
            other = self.index_of(bp)  # type: ignore[arg-type]
            if other is not self:
                return other.offset_of(bp)
        return self._offset.get(id(bp), 0)

    def index_of(self, where: Scope | BlockParse | None) -> "ModuleIndex":
        """The index a scope or block belongs to (another module's, across the workspace)."""
        bp = where.block if isinstance(where, Scope) else where
        if bp is not None and self.program is not None and bp.path != self.path and id(bp) not in self._offset:
            other = self.program.index(bp.path)  # type: ignore[attr-defined]
            if other is not None:
                return other
        return self

    def path_of(self, where: Scope | BlockParse | None) -> str | None:
        bp = where.block if isinstance(where, Scope) else where
        return bp.path if bp is not None else self.path

    def span(self, node: ast.AST, where: Scope | BlockParse | None) -> Span:
        bp = where.block if isinstance(where, Scope) else where
        if self.deps is not None and bp is not None:
            self.deps.blocks.add(id(bp))
        lineno = getattr(node, "lineno", None)
        if bp is None or lineno is None:
            return Span(1, 0, 1, 0)
        if id(bp) not in self._offset:
            other = self.index_of(bp)
            if other is not self:
                return other.span(node, bp)
        off = self._offset.get(id(bp), 0)
        end_line = getattr(node, "end_lineno", None) or lineno
        col = bp.col(lineno, node.col_offset)  # type: ignore[attr-defined]
        end_col = bp.col(end_line, getattr(node, "end_col_offset", None) or node.col_offset)  # type: ignore[attr-defined]
        return Span(lineno + off, col, end_line + off, end_col)

    def line_of(self, node: ast.AST, where: Scope | BlockParse) -> int:
        return self.span(node, where).line

    def code_of(self, node: ast.AST, where: Scope | BlockParse | None = None) -> str:
        """The source text of a node as written (or unparsed when its block is not given)."""
        bp = where.block if isinstance(where, Scope) else where
        if self.deps is not None and bp is not None:
            self.deps.blocks.add(id(bp))
        if bp is not None and getattr(node, "lineno", None) is not None:
            lines = [bp.line(i) for i in range(node.lineno, (node.end_lineno or node.lineno) + 1)]  # type: ignore[attr-defined]
            if lines:
                start = bp.col(node.lineno, node.col_offset)  # type: ignore[attr-defined]
                end = bp.col(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
                if len(lines) == 1:
                    return lines[0][start:end]
                return "\n".join([lines[0][start:], *lines[1:-1], lines[-1][:end]])
        try:
            return ast.unparse(node)
        except Exception:  # noqa: BLE001 - display only
            return "<expr>"

    # --- per-block lookups --------------------------------------------------------------
    def block_of_parse(self) -> dict[int, tuple[Block, BlockParse]]:
        """id(BlockParse) -> (its block, it), for this text."""
        if self._block_of is None:
            self._block_of = {id(bp): (block, bp) for block, bp in self.parses}
        return self._block_of

    def calls_to(self, names) -> list[CallSite]:
        """Every call whose callee's last name is in ``names``, block by block."""
        out: list[CallSite] = []
        ordered = sorted(names)
        for _, bp in self.parses:
            idx = bp.calls_by_callee()
            if idx and not idx.keys().isdisjoint(names):
                for n in ordered:
                    got = idx.get(n)
                    if got:
                        out.extend(got)
        return out

    def may_hold_suppression(self) -> bool:
        """Whether a ``# pallas-lsp: ignore`` comment may be in the text: asked of each block's
        text once per block parse (kept across edits, so a keystroke asks only the blocks it
        made), and of the lines no block holds, instead of searching the whole text each time."""
        for _, bp in self.parses:
            if bp.fact("may_suppress", lambda p: may_hold_suppression(p.text)):
                return True
        covered, lines = 0, None
        for block in sorted(self.blocks, key=lambda b: b.start_line):
            if block.start_line > covered + 1:  # (lines between blocks)
                lines = self.lines() if lines is None else lines
                if may_hold_suppression("\n".join(lines[covered:block.start_line - 1])):
                    return True
            covered = max(covered, block.end_line)
        if covered >= self.line_count:
            return False
        lines = self.lines() if lines is None else lines
        return may_hold_suppression("\n".join(lines[covered:]))

    def lines(self) -> list[str]:
        """The text's lines as the parser counts them (\n, \r\n, \r), without breaks."""
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self.text)
        return self._lines

    def line_text(self, line: int) -> str:
        lines = self.lines()
        return lines[line - 1] if 0 < line <= len(lines) else ""
