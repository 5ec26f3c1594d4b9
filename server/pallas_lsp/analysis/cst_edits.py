"""Format-preserving code changes with libcst, located by the ``ast`` positions the rules have.

Detection reads the ``ast`` index (keystroke speed); a fix is built only when asked for, here:
the top-level block around the position is parsed with libcst (the whole module for an
import), the node is found by its span, changed in the concrete syntax tree (comments,
trailing commas, line breaks of multi-line calls and decorators kept), and the result is
compared with the text it came from. What comes back is one minimal :class:`TextEdit` (only
the changed region, columns in code points, end exclusive), or None when the change cannot be
made there or the changed text would not parse.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from .blocks import Block, line_starts
from .findings import TextEdit
from .edits import apply_edits
from .module import Span, _libcst_accepts, _on_big_stack, libcst_may_read

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MEMBER_WRAPPER = "class _:\n"


class EditFailed(ValueError):
    """The change cannot be made (the node is not found, or the result would not parse)."""


# --- regions: the text a change is parsed in -----------------------------------------------------
@dataclass(frozen=True)
class Region:
    """Whole lines of a module: one top-level statement (with its decorators), one member of a
    top-level class (parsed inside a wrapper class), or the whole module."""

    text: str  # the region's own lines, as in the module
    first_line: int  # the module line of its first line (1-based)
    wrapper: str = ""  # put before ``text`` so that it parses alone

    def parse(self) -> cst.Module:
        """The region's tree, parsed within the bounds libcst is asked within (docs/security.md:
        size, bracket depth, operator chains) and on a thread with a stack for its native parser."""
        source = self.wrapper + self.text
        if not libcst_may_read(source):
            raise EditFailed("this block is beyond the bounds libcst is asked within")
        got: list = []

        def parse() -> None:
            try:
                got.append(cst.parse_module(source))
            except Exception as exc:  # noqa: BLE001 - any failure: no edit
                got.append(exc)

        _on_big_stack(parse)
        if not got or isinstance(got[0], Exception):
            raise EditFailed(f"libcst cannot read this block: {got[0] if got else 'no result'}")
        return got[0]

    @property
    def wrapper_lines(self) -> int:
        return self.wrapper.count("\n")

    def to_module(self, line: int, col: int) -> tuple[int, int]:
        """A position in the parsed text (wrapper included) -> a module position."""
        return line - self.wrapper_lines + self.first_line - 1, col

    def from_module(self, span: Span) -> tuple[tuple[int, int], tuple[int, int]]:
        off = self.first_line - 1 - self.wrapper_lines
        return (span.line - off, span.col), (span.end_line - off, span.end_col)

    def edit(self, new_code: str) -> TextEdit | None:
        """The minimal edit that turns this region into ``new_code`` (the parsed text, wrapper
        included, as libcst printed it); None when nothing changed. Raises when it would not parse."""
        if not new_code.startswith(self.wrapper):
            raise EditFailed("the wrapper changed")
        new = new_code[len(self.wrapper):]
        if new == self.text:
            return None
        if not parses(self.wrapper + new):
            raise EditFailed("the changed code would not parse")
        return minimal_edit(self.text, new, self.first_line)


def _lines_of(text: str, first: int, last: int) -> str:
    starts = line_starts(text)
    a = starts[first - 1] if first - 1 < len(starts) else len(text)
    b = starts[last] if last < len(starts) else len(text)
    return text[a:b]


def region_at(text: str, blocks: Sequence[Block], line: int) -> Region:
    """The top-level block (or class member) holding module line ``line``. A class's own header
    block stands for the whole class: its members follow as blocks of their own."""
    for i, block in enumerate(blocks):
        if not block.start_line <= line <= block.end_line:
            continue
        if block.kind == "member":
            return Region(_lines_of(text, block.start_line, block.end_line), block.start_line, _MEMBER_WRAPPER)
        end = block.end_line
        if block.owner:  # a class header: the class is the header and its member blocks
            for later in blocks[i + 1:]:
                if later.kind != "member" or later.owner != block.owner:
                    break
                end = later.end_line
        return Region(_lines_of(text, block.start_line, end), block.start_line)
    return whole_module(text)


def whole_module(text: str) -> Region:
    return Region(text, 1)


def parses(code: str) -> bool:
    """Whether ``code`` is a valid module (Python's parser; libcst's for syntax newer than it reads)."""
    try:
        ast.parse(code)
        return True
    except SyntaxError:
        pass
    except (RecursionError, MemoryError, ValueError):
        return False
    return libcst_may_read(code) and _libcst_accepts(code)


def minimal_edit(old: str, new: str, first_line: int = 1) -> TextEdit:
    """One edit replacing just the region where ``old`` and ``new`` differ. Whole unchanged
    lines are kept first (an inserted or deleted line is an edit of whole lines), then the
    common start and end within the changed lines."""
    old_starts, new_starts = line_starts(old), line_starts(new)
    # Common whole lines at the start (their breaks included).
    p = 0
    while p < len(old_starts) - 1 and p < len(new_starts) - 1 \
            and old[old_starts[p]:old_starts[p + 1]] == new[new_starts[p]:new_starts[p + 1]]:
        p += 1
    a, b = old_starts[p], new_starts[p]
    # Common characters at the end (not into the common start).
    q = 0
    limit = min(len(old) - a, len(new) - b)
    while q < limit and old[len(old) - 1 - q] == new[len(new) - 1 - q]:
        q += 1
    # Then common characters at the start of what is left, unless the change is whole lines.
    old_mid, new_mid = old[a:len(old) - q], new[b:len(new) - q]
    whole_lines = (not old_mid or old_mid.endswith(("\n", "\r"))) and (not new_mid or new_mid.endswith(("\n", "\r")))
    r = 0
    if not whole_lines:
        limit = min(len(old_mid), len(new_mid))
        while r < limit and old_mid[r] == new_mid[r]:
            r += 1
    start = a + r
    end = len(old) - q
    if start > end:  # (the end's common characters overlapped the start's)
        end = start
    # Never split a \r\n.
    if 0 < start < len(old) and old[start - 1] == "\r" and old[start] == "\n":
        start -= 1
    if 0 < end < len(old) and old[end - 1] == "\r" and old[end] == "\n":
        end += 1
    new_text = new[start - a + b: len(new) - (len(old) - end)]
    sl, sc = _position(old_starts, start)
    el, ec = _position(old_starts, end)
    return TextEdit(Span(sl + first_line - 1, sc, el + first_line - 1, ec), new_text)


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    import bisect

    i = bisect.bisect_right(starts, offset) - 1
    return i + 1, offset - starts[i]


# --- finding a node by its ast span -----------------------------------------------------------
class _Located:
    """A parsed region with positions and parents."""

    def __init__(self, region: Region) -> None:
        self.region = region
        self.module = region.parse()
        self.wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        self.positions = self.wrapper.resolve(PositionProvider)
        self._parents: dict | None = None

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        if self._parents is None:
            self._parents = self.wrapper.resolve(ParentNodeProvider)
        return self._parents.get(node)

    def find(self, span: Span, kinds: tuple[type, ...], accept: Callable[[cst.CSTNode], bool] | None = None,
             start_only: bool = False) -> cst.CSTNode:
        """The innermost node of one of ``kinds`` that covers ``span`` (parentheses may widen a
        node in libcst: the smallest covering one is taken)."""
        start, end = self.region.from_module(span)
        if start_only:
            end = start
        best, best_key = None, None
        for node, r in self.positions.items():
            if not isinstance(node, kinds):
                continue
            a, b = (r.start.line, r.start.column), (r.end.line, r.end.column)
            if a <= start and end <= b and (accept is None or accept(node)):
                key = (a, (-b[0], -b[1]))  # the latest start, then the earliest end
                if best is None or key > best_key:
                    best, best_key = node, key
        if best is None and not start_only:
            # libcst leaves a node's parentheses out of its range where ast counts them in
            # (a tuple's): the largest node inside the span.
            for node, r in self.positions.items():
                if not isinstance(node, kinds):
                    continue
                a, b = (r.start.line, r.start.column), (r.end.line, r.end.column)
                if start <= a and b <= end and (accept is None or accept(node)):
                    key = ((-a[0], -a[1]), b)
                    if best is None or key > best_key:
                        best, best_key = node, key
        if best is None:
            raise EditFailed(f"no {'/'.join(k.__name__ for k in kinds)} at line {span.line}")
        return best

    def replaced(self, old: cst.CSTNode, new: cst.CSTNode | cst.RemovalSentinel) -> TextEdit | None:
        out = self.module.deep_replace(old, new) if not isinstance(new, cst.RemovalSentinel) \
            else self.module.deep_remove(old)
        return self.region.edit(out.code)


def _expression(code: str) -> cst.BaseExpression:
    try:
        return cst.parse_expression(code)
    except Exception as exc:  # noqa: BLE001
        raise EditFailed(f"not an expression: {code!r}") from exc


# --- sequences: appending an item the way the others are laid out ---------------------------------
_NO_SPACE = cst.SimpleWhitespace("")
_ONE_SPACE = cst.SimpleWhitespace(" ")


def _is_break(ws) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)


def _fresh_break(like: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
    """A line break with ``like``'s indentation but none of its comment or blank lines."""
    return cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[],
                                       indent=like.indent, last_line=like.last_line)


def _continued(ws: cst.ParenthesizedWhitespace, lead: cst.ParenthesizedWhitespace) -> cst.ParenthesizedWhitespace:
    """``ws``'s end of line (its comment stays on its line), then ``lead``'s indentation."""
    return ws.with_changes(indent=lead.indent, last_line=lead.last_line)


@dataclass
class _Seq:
    """A bracketed sequence as libcst holds it: items with commas; the whitespace before the
    closing bracket is either after the last item (``after``: the attribute of calls' and defs'
    items) or the closer's own (``closer``: lists)."""

    items: list
    opener_ws: object  # the whitespace after the opening bracket
    after: str | None = None  # e.g. "whitespace_after_arg"
    closer_ws: object = None
    set_closer: Callable | None = None


def _append(seq: _Seq, new_item) -> tuple[list, object]:
    """The items with ``new_item`` appended (and the closer's new whitespace, for lists): on its
    own line when the last item is on its own line, after a ", " otherwise; a trailing comma
    stays trailing; a comment after the last item stays with it."""
    items = list(seq.items)
    if not items:
        return [new_item], seq.closer_ws
    last = items[-1]
    trailing = isinstance(last.comma, cst.Comma)
    lead = items[-2].comma.whitespace_after if len(items) > 1 and isinstance(items[-2].comma, cst.Comma) \
        else seq.opener_ws
    if seq.after is not None:
        closing = last.comma.whitespace_after if trailing else getattr(last, seq.after)
    else:
        closing = seq.closer_ws
    closer_ws = seq.closer_ws
    if _is_break(closing) and _is_break(lead):
        # One item a line: the last item's comma ends its line, the new item takes the closing break.
        last_comma = (last.comma if trailing else cst.Comma(whitespace_before=_NO_SPACE)).with_changes(
            whitespace_after=_continued(closing, lead))
        last = last.with_changes(comma=last_comma)
        if seq.after is not None:
            if trailing:
                new_item = new_item.with_changes(comma=cst.Comma(whitespace_before=_NO_SPACE,
                                                                 whitespace_after=_fresh_break(closing)))
            else:
                last = last.with_changes(**{seq.after: _NO_SPACE})
                new_item = new_item.with_changes(**{seq.after: _fresh_break(closing)})
        else:
            if trailing:
                new_item = new_item.with_changes(comma=cst.Comma(whitespace_before=_NO_SPACE,
                                                                 whitespace_after=_NO_SPACE))
            closer_ws = _fresh_break(closing)
    else:
        comma = last.comma if trailing else cst.Comma(whitespace_before=_NO_SPACE)
        last = last.with_changes(comma=comma.with_changes(whitespace_after=_ONE_SPACE))
        if trailing:
            new_item = new_item.with_changes(comma=seq.items[-1].comma)
        if seq.after is not None:
            new_item = new_item.with_changes(**{seq.after: getattr(seq.items[-1], seq.after)})
            last = last.with_changes(**{seq.after: _NO_SPACE})
    items[-1] = last
    items.append(new_item)
    return items, closer_ws


def _remove(seq: _Seq, i: int) -> list:
    """The items without item ``i``: a last item's comma and closing layout go to the one before
    it (whose own end-of-line comment stays)."""
    items = list(seq.items)
    removed = items.pop(i)
    if i < len(items) or not items:
        return items
    prev = items[-1]
    had_trailing = isinstance(removed.comma, cst.Comma)
    closing = removed.comma.whitespace_after if had_trailing else (
        getattr(removed, seq.after) if seq.after else None)
    own = prev.comma.whitespace_after if isinstance(prev.comma, cst.Comma) else None
    if had_trailing:
        comma = removed.comma
        if _is_break(own) and _is_break(closing):
            comma = comma.with_changes(whitespace_after=_continued(own, closing))
        prev = prev.with_changes(comma=comma)
    else:
        prev = prev.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if seq.after is not None:
            after = getattr(removed, seq.after)
            if _is_break(own) and _is_break(after):
                after = _continued(own, after)
            prev = prev.with_changes(**{seq.after: after})
    items[-1] = prev
    return items


def _call_seq(call: cst.Call) -> _Seq:
    return _Seq(list(call.args), call.whitespace_before_args, after="whitespace_after_arg")


# --- the operations ----------------------------------------------------------------------------
def _bounded(op):
    """An operation that fails as :class:`EditFailed` (never anything else) on a tree too deep
    for libcst's visitors or too large for memory."""
    import functools

    @functools.wraps(op)
    def run(*args, **kwargs):
        try:
            return op(*args, **kwargs)
        except (RecursionError, MemoryError) as exc:
            raise EditFailed(f"too deep for libcst: {type(exc).__name__}") from None

    return run


@_bounded
def set_keyword(text: str, blocks: Sequence[Block], call_span: Span, name: str, value: str) -> TextEdit | None:
    """Add ``name=value`` to the call at ``call_span``, or replace the keyword's value when it is
    there. None when the call already reads so."""
    loc = _Located(region_at(text, blocks, call_span.line))
    call = loc.find(call_span, (cst.Call,))
    new_value = _expression(value)
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return loc.replaced(arg.value, new_value)
    arg = cst.Arg(value=new_value, keyword=cst.Name(name),
                  equal=cst.AssignEqual(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))
    args, _ = _append(_call_seq(call), arg)
    return loc.replaced(call, call.with_changes(args=args))


@_bounded
def remove_keyword(text: str, blocks: Sequence[Block], call_span: Span, name: str) -> TextEdit | None:
    """Remove the keyword ``name`` (with its comma) from the call at ``call_span``; None when it
    has no such keyword."""
    loc = _Located(region_at(text, blocks, call_span.line))
    call = loc.find(call_span, (cst.Call,))
    for i, arg in enumerate(call.args):
        if arg.keyword is not None and arg.keyword.value == name:
            args = _remove(_call_seq(call), i)
            if not args:  # ``f(\n    k=1,\n)`` becomes ``f()``
                return loc.replaced(call, call.with_changes(args=args, whitespace_before_args=_NO_SPACE))
            return loc.replaced(call, call.with_changes(args=args))
    return None


@_bounded
def append_parameter(text: str, blocks: Sequence[Block], def_span: Span, name: str | Sequence[str]) -> TextEdit:
    """A new last positional parameter ``name`` (or several, in order) of the def at
    ``def_span`` (decorators, comments and a trailing comma kept). Only for defs without
    ``*args``, keyword-only parameters or ``**kwargs``, where a last positional parameter is the
    last parameter."""
    loc = _Located(region_at(text, blocks, def_span.line))
    fdef = loc.find(def_span, (cst.FunctionDef,), start_only=True)
    params = fdef.params
    if not isinstance(params.star_arg, cst.MaybeSentinel) or params.kwonly_params or params.star_kwarg:
        raise EditFailed("the def has *args, keyword-only parameters or **kwargs")
    positional = bool(params.params or not params.posonly_params)
    # (Only positional-only parameters: the new ones go before the "/".)
    items = list(params.params if positional else params.posonly_params)
    for one in [name] if isinstance(name, str) else name:
        items, _ = _append(_Seq(items, fdef.whitespace_before_params, after="whitespace_after_param"),
                           cst.Param(cst.Name(one)))
    changed = params.with_changes(params=items) if positional else params.with_changes(posonly_params=items)
    edit = loc.replaced(params, changed)
    if edit is None:
        raise EditFailed("nothing changed")
    return edit


@_bounded
def insert_parameter(text: str, blocks: Sequence[Block], def_span: Span, name: str, at: int) -> TextEdit:
    """A new positional parameter ``name`` before the ``at``-th of the def at ``def_span`` (its
    comma and layout copied from its neighbour: one a line stays one a line); at the end:
    :func:`append_parameter`. Only for defs with plain positional parameters."""
    loc = _Located(region_at(text, blocks, def_span.line))
    fdef = loc.find(def_span, (cst.FunctionDef,), start_only=True)
    params = fdef.params
    if not isinstance(params.star_arg, cst.MaybeSentinel) or params.kwonly_params or params.star_kwarg \
            or params.posonly_params:
        raise EditFailed("the def has more than plain positional parameters")
    items = list(params.params)
    if not 0 <= at <= len(items):
        raise EditFailed("no such parameter position")
    if at == len(items):
        return append_parameter(text, blocks, def_span, name)
    like = items[at - 1] if at > 0 else items[at]
    comma = like.comma if isinstance(like.comma, cst.Comma) else cst.Comma(whitespace_after=_ONE_SPACE)
    items.insert(at, cst.Param(cst.Name(name), comma=comma))
    edit = loc.replaced(params, params.with_changes(params=items))
    if edit is None:
        raise EditFailed("nothing changed")
    return edit


@_bounded
def append_argument(text: str, blocks: Sequence[Block], call_span: Span, code: str) -> TextEdit:
    """``code`` as a new last positional argument of the call at ``call_span``, which has only
    positional arguments (none starred)."""
    loc = _Located(region_at(text, blocks, call_span.line))
    call = loc.find(call_span, (cst.Call,))
    if any(a.keyword is not None or a.star for a in call.args):
        raise EditFailed("the call has keyword or starred arguments")
    args, _ = _append(_call_seq(call), cst.Arg(value=_expression(code)))
    return loc.replaced(call, call.with_changes(args=args))


@_bounded
def append_element(text: str, blocks: Sequence[Block], seq_span: Span, code: str | Sequence[str]) -> TextEdit:
    """``code`` (or several, in order) as new last elements of the list or tuple literal at ``seq_span``."""
    loc = _Located(region_at(text, blocks, seq_span.line))
    node = loc.find(seq_span, (cst.List, cst.Tuple))
    elements = [cst.Element(_expression(c)) for c in ([code] if isinstance(code, str) else code)]
    if isinstance(node, cst.List):
        items, closer = list(node.elements), node.rbracket.whitespace_before
        for element in elements:
            items, closer = _append(_Seq(items, node.lbracket.whitespace_after, closer_ws=closer), element)
        new = node.with_changes(elements=items, rbracket=node.rbracket.with_changes(whitespace_before=closer))
    else:
        if not node.lpar:
            raise EditFailed("a tuple without parentheses")
        items, closer = list(node.elements), node.rpar[-1].whitespace_before
        for element in elements:
            items, closer = _append(_Seq(items, node.lpar[0].whitespace_after, closer_ws=closer), element)
        if len(items) == 1:  # a one-element tuple needs its comma
            items = [items[0].with_changes(comma=cst.Comma(whitespace_before=_NO_SPACE, whitespace_after=_NO_SPACE))]
        rpar = [*node.rpar[:-1], node.rpar[-1].with_changes(whitespace_before=closer)]
        new = node.with_changes(elements=items, rpar=rpar)
    edit = loc.replaced(node, new)
    if edit is None:
        raise EditFailed("nothing changed")
    return edit


@_bounded
def replace_expression(text: str, blocks: Sequence[Block], span: Span, code: str) -> TextEdit:
    """The expression at ``span`` replaced by ``code`` (its parentheses and comments kept)."""
    loc = _Located(region_at(text, blocks, span.line))
    node = loc.find(span, (cst.BaseExpression,))
    new = _expression(code)
    if hasattr(node, "lpar") and node.lpar and hasattr(new, "lpar"):
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
    edit = loc.replaced(node, new)
    if edit is None:
        raise EditFailed("nothing changed")
    return edit


@_bounded
def delete_statement(text: str, blocks: Sequence[Block], stmt_span: Span) -> TextEdit:
    """Delete the simple statement at ``stmt_span``: its whole line when it is alone there (the
    comment lines above it stay, above the next statement), else just it and its ``;``. The
    only statement of a body becomes ``pass``."""
    loc = _Located(region_at(text, blocks, stmt_span.line))
    small = loc.find(stmt_span, (cst.BaseSmallStatement,))
    line = loc.parent(small)
    if not isinstance(line, cst.SimpleStatementLine):
        raise EditFailed("not a statement on a line of its own")
    if len(line.body) > 1:
        body = [s for s in line.body if s is not small]
        body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT) \
            if line.body[-1] is small else body[-1]
        return _required(loc.replaced(line, line.with_changes(body=body)))
    owner = loc.parent(line)
    if not isinstance(owner, (cst.IndentedBlock, cst.Module)):
        raise EditFailed("a statement in a one-line body")
    siblings = list(owner.body)
    i = next(k for k, s in enumerate(siblings) if s is line)
    if len(siblings) == 1:
        return _required(loc.replaced(line, cst.SimpleStatementLine([cst.Pass()], leading_lines=line.leading_lines)))
    del siblings[i]
    if i < len(siblings):  # the comments above it now sit above the next statement
        nxt = siblings[i]
        siblings[i] = nxt.with_changes(leading_lines=[*line.leading_lines, *nxt.leading_lines])
    return _required(loc.replaced(owner, owner.with_changes(body=siblings)))


def _required(edit: TextEdit | None) -> TextEdit:
    if edit is None:
        raise EditFailed("nothing changed")
    return edit


_IMPORT_START = re.compile(r"(?:import|from)\s")
_STRING_START = re.compile(r"(?:[rRuUbB]{0,2})(?:\"|')")


def _leading_imports(text: str, blocks: Sequence[Block]) -> Region:
    """The top of the module where imports go: its leading docstring, comments and import
    statements, and the first statement after them (so that libcst sees where they end). A
    10,000-line module is not parsed whole for one import (libcst takes seconds on it)."""
    last = 0
    for block in blocks:
        head = "\n".join(line for line in block.text.splitlines()
                         if line.strip() and not line.lstrip().startswith("#")).lstrip()
        if block.kind != "module" or block.owner:
            break  # a class: its lines parse only with its members; stop before it
        last = block.end_line
        if head and not _IMPORT_START.match(head) and not _STRING_START.match(head):
            break
    else:
        return whole_module(text)
    if last == 0:
        return whole_module(text)
    return Region(_lines_of(text, 1, last), 1)


@_bounded
def add_import(text: str, module: str, name: str | None = None, asname: str | None = None,
               blocks: Sequence[Block] | None = None) -> TextEdit | None:
    """``import module`` (``import module as asname``), or ``from module import name [as asname]``,
    placed as libcst's ``AddImportsVisitor`` places it (after the module's leading imports, past
    its docstring and ``__future__`` imports); None when the module already has it. With the
    module's ``blocks``, only its top is parsed (where the import goes)."""
    from libcst.codemod import CodemodContext
    from libcst.codemod.visitors import AddImportsVisitor

    region = _leading_imports(text, blocks) if blocks is not None else whole_module(text)
    tree = region.parse()
    context = CodemodContext()
    AddImportsVisitor.add_needed_import(context, module, name, asname)
    out = AddImportsVisitor(context).transform_module(tree)
    return region.edit(out.code)


# --- checking edits ----------------------------------------------------------------------------
def _last_line(region: Region) -> int:
    n = len(line_starts(region.text))
    if region.text.endswith(("\n", "\r")):
        n -= 1
    return region.first_line + max(n, 1) - 1


def edits_parse(text: str, blocks: Sequence[Block], edits: Iterable[TextEdit]) -> bool:
    """Whether ``text`` with ``edits`` applied still parses, judged on the blocks they touch (each
    block parses on its own, as the analysis reads them); the whole text when an edit crosses
    blocks. False for overlapping edits."""
    edits = list(edits)
    groups: dict[int, tuple[Region, list[TextEdit]]] = {}
    for e in edits:
        region = region_at(text, blocks, e.span.line)
        last = _last_line(region)
        if not (e.span.end_line <= last or (e.span.end_line == last + 1 and e.span.end_col == 0)):
            try:
                return parses(apply_edits(text, edits))
            except ValueError:
                return False
        groups.setdefault(region.first_line, (region, []))[1].append(e)
    for region, inside in groups.values():
        off = region.first_line - 1
        shifted = [TextEdit(Span(e.span.line - off, e.span.col, e.span.end_line - off, e.span.end_col), e.new_text)
                   for e in inside]
        try:
            new = apply_edits(region.text, shifted)
        except ValueError:
            return False
        if not parses(region.wrapper + new):
            return False
    return True
