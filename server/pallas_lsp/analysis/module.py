"""A module as the analysis sees it: cached block parses stitched into one index.

Parsing is per block (see :mod:`.blocks`) and cached by the block's text, so an
edit costs one block's parse; this module only re-stitches the cached facts and
adds each block's line offset.
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from threading import Lock
from typing import Iterator

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .blocks import Block, split_blocks, split_loose
from .scopes import Binding, CallSite, DecoratorSite, Scope, WithSite, index_module


@dataclass(frozen=True)
class Span:
    """1-based lines; 0-based columns in code points (what libcst gives)."""

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
    module: cst.Module | None
    positions: object  # Mapping[CSTNode, CodeRange]
    root: Scope | None
    error: tuple[str, int, int] | None  # message, relative line (1-based, wrapper included), column
    sites: dict = None  # type: ignore[assignment]  # id(cst.Call) -> CallSite, for this block


_CACHE: "OrderedDict[tuple[str, str], BlockParse]" = OrderedDict()
_CACHE_LIMIT = 50_000
_CACHE_LOCK = Lock()
stats = {"parsed": 0, "cached": 0}


def _parse(block: Block) -> BlockParse:
    source = block.wrapper + block.text
    wrapper_lines = block.wrapper.count("\n")
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        msg = str(exc).splitlines()[0] if str(exc) else "invalid syntax"
        return BlockParse(block.text, block.kind, wrapper_lines, None, {}, None,
                          (exc.message if hasattr(exc, "message") else msg, exc.raw_line, exc.raw_column))
    except (RecursionError, MemoryError, ValueError, TypeError) as exc:  # pathological input
        return BlockParse(block.text, block.kind, wrapper_lines, None, {}, None,
                          (f"cannot parse: {type(exc).__name__}", 1 + wrapper_lines, 0))
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    bp = BlockParse(block.text, block.kind, wrapper_lines, module, positions, None, None)
    bp.root = index_module(module, bp)
    bp.sites = {id(cs.node): cs for s in bp.root.walk() for cs in s.calls}
    return bp


def parse_block(block: Block) -> BlockParse:
    key = (block.kind, block.text)
    with _CACHE_LOCK:
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            stats["cached"] += 1
            return hit
    bp = _parse(block)
    stats["parsed"] += 1
    with _CACHE_LOCK:
        _CACHE[key] = bp
        while len(_CACHE) > _CACHE_LIMIT:
            _CACHE.popitem(last=False)
    return bp


def clear_cache() -> None:
    with _CACHE_LOCK:
        _CACHE.clear()


@dataclass(eq=False)
class ClassInfo:
    name: str
    members: dict[str, list[Binding]] = field(default_factory=dict)
    scopes: list[Scope] = field(default_factory=list)


class ModuleIndex:
    """The facts of one module text, with absolute positions."""

    def __init__(self, text: str, path: str | None = None) -> None:
        self.text = text
        self.path = path
        self.blocks = split_blocks(text)
        self.parses: list[tuple[Block, BlockParse]] = []
        self._offset: dict[int, int] = {}
        self.syntax_errors: list[SyntaxProblem] = []
        self.scope = Scope("module", "<module>", None, None, None)
        self.classes: dict[str, ClassInfo] = {}
        self._seen: set[int] = set()
        for block in self.blocks:
            bp = self._add(block)
            if bp.error is not None:
                msg, line, col = bp.error
                line = max(line + self._offset[id(bp)], block.start_line)
                self.syntax_errors.append(SyntaxProblem(msg, Span(line, col, line, col + 1)))
                # Keep what still parses after a half-typed construct.
                for part in split_loose(block)[1:]:
                    self._add(part)

    def _add(self, block: Block) -> BlockParse:
        bp = parse_block(block)
        if id(bp) in self._seen:  # the same text twice in one module: give each its own facts
            bp = _parse(block)
        self._seen.add(id(bp))
        self.parses.append((block, bp))
        self._offset[id(bp)] = block.start_line - 1 - bp.wrapper_lines
        if bp.error is None:
            assert bp.root is not None
            if block.kind == "member":
                self._merge_member(block, bp)
            else:
                self._merge_module(bp)
        return bp

    # --- stitching ---------------------------------------------------------------------
    def _merge_module(self, bp: BlockParse) -> None:
        root, m = bp.root, self.scope
        assert root is not None
        for name, bs in root.bindings.items():
            m.bindings.setdefault(name, []).extend(bs)
        m.calls.extend(root.calls)
        m.decorators.extend(root.decorators)
        m.withs.extend(root.withs)
        m.children.extend(root.children)
        for k, v in root.loads.items():
            m.loads[k] = m.loads.get(k, 0) + v
        for child in root.children:
            if child.kind == "class":
                info = self.classes.setdefault(child.name, ClassInfo(child.name))
                info.scopes.append(child)
                for name, bs in child.bindings.items():
                    info.members.setdefault(name, []).extend(bs)

    def _merge_member(self, block: Block, bp: BlockParse) -> None:
        assert bp.root is not None
        wrapper_class = next((c for c in bp.root.children if c.kind == "class"), None)
        if wrapper_class is None:
            return
        info = self.classes.setdefault(block.owner, ClassInfo(block.owner))
        wrapper_class.name = block.owner
        info.scopes.append(wrapper_class)
        for name, bs in wrapper_class.bindings.items():
            info.members.setdefault(name, []).extend(bs)
        # Module-level facts that live in a member (decorators evaluated in the class body).
        self.scope.children.append(wrapper_class)

    # --- positions ---------------------------------------------------------------------
    def offset_of(self, scope_or_block: object) -> int:
        bp = scope_or_block.block if isinstance(scope_or_block, Scope) else scope_or_block
        return self._offset.get(id(bp), 0)

    def span(self, node: cst.CSTNode, where: Scope | BlockParse) -> Span:
        bp = where.block if isinstance(where, Scope) else where
        if bp is None:
            return Span(1, 0, 1, 0)
        r: CodeRange | None = bp.positions.get(node)  # type: ignore[union-attr]
        if r is None:
            return Span(1, 0, 1, 0)
        off = self._offset.get(id(bp), 0)
        return Span(r.start.line + off, r.start.column, r.end.line + off, r.end.column)

    def line_of(self, node: cst.CSTNode, where: Scope | BlockParse) -> int:
        return self.span(node, where).line

    def binding_line(self, b: Binding, scope: Scope) -> int:
        node = b.stmt if b.stmt is not None else b.node
        return self.line_of(node, scope) if node is not None else 0

    def code_of(self, node: cst.CSTNode) -> str:
        try:
            return cst.Module(body=[]).code_for_node(node)
        except Exception:  # noqa: BLE001 - display only
            return "<expr>"

    # --- iteration ---------------------------------------------------------------------
    def all_scopes(self) -> Iterator[Scope]:
        yield self.scope
        for child in self.scope.children:
            yield from child.walk()

    def all_calls(self) -> Iterator[CallSite]:
        for s in self.all_scopes():
            yield from s.calls

    def all_decorators(self) -> Iterator[DecoratorSite]:
        for s in self.all_scopes():
            yield from s.decorators

    def all_withs(self) -> Iterator[WithSite]:
        for s in self.all_scopes():
            yield from s.withs

    def module_scope_of(self, scope: Scope) -> Scope:
        return self.scope

    def line_text(self, line: int) -> str:
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""
