"""Keeping a module's launch results across edits.

While a kernel author types, one block changes at a time and nearly every launch of the
module still has the facts it had before. Each launch's analysis (finding it, its contexts,
what its kernel reaches, the rules' verdict) is recorded with what it read:

* the blocks whose facts or positions it used (``Deps.blocks``),
* the module-level names it looked up and the class members it read (``Deps.bound``): another
  block changes those only by binding the name at its top level or as a member, and
* the names it scanned calls or aliases for (``Deps.used``): another block changes those by
  mentioning them at all.

After an edit, a result is reused when none of the blocks it read went away, no block that
went away or came in binds one of its ``bound`` names, and none mentions one of its ``used``
names (a block's mentions are every word it contains: a superset). Blocks that moved
relative to each other, and module-wide facts (launch wrappers, ``force_*``/``set_*`` calls,
CUDA lowerings) changing, drop everything.
A reused launch keeps the positions of the text it was computed on; they are moved to the
current text (each block's line shift) only when someone asks for the launches (hovers,
lenses). A reused launch whose rules reported keeps their reports while none of the blocks it
read moved, no import changed and the module binds the same names (what a report says beyond
its tracked reads, the module's names for a fix's imports, is then what the current text would
give); otherwise its rules run again on the current text. Fixes are built from the current
text either way: a kept report's view is pointed at it.

``tests/analysis/test_incremental.py`` checks that the results equal a fresh analysis after
every edit of random edit sequences.
"""
from __future__ import annotations

from dataclasses import dataclass, field


class Deps:
    """What one computation read."""

    __slots__ = ("blocks", "bound", "used")

    def __init__(self) -> None:
        self.blocks: set[int] = set()  # id() of BlockParse objects
        self.bound: set[str] = set()  # module-level names looked up, class members read
        self.used: set[str] = set()  # names whose calls or aliases were scanned

    def read(self, scope: object) -> None:
        b = getattr(scope, "block", None)
        if b is not None:
            self.blocks.add(id(b))

    def merge(self, other: "Deps") -> None:
        self.blocks |= other.blocks
        self.bound |= other.bound
        self.used |= other.used

    def still_valid(self, change: "Change") -> bool:
        return self.blocks.isdisjoint(change.gone) and self.bound.isdisjoint(change.bound) \
            and self.used.isdisjoint(change.mentioned)


@dataclass(eq=False)
class Change:
    """What an edit changed, block-wise: the parses that went away, the names bound and the
    words mentioned by every block that went away or came in."""

    gone: set[int]
    bound: set[str]
    mentioned: set[str]
    reordered: bool
    # Module-level names bound by the blocks that went away and by those that came in, and
    # whether any of them imports: what kept reports may rest on without having read it.
    bound_before: frozenset[str] = frozenset()
    bound_after: frozenset[str] = frozenset()
    imports_touched: bool = False

    @property
    def same_bindings(self) -> bool:
        return not self.imports_touched and self.bound_before == self.bound_after


def change_between(old_parses: list, new_parses: list) -> Change:
    old_ids = [id(bp) for _, bp in old_parses]
    new_ids = [id(bp) for _, bp in new_parses]
    old_set, new_set = set(old_ids), set(new_ids)
    gone = old_set - new_set
    bound: set[str] = set()
    mentioned: set[str] = set()
    went = [bp for _, bp in old_parses if id(bp) in gone]
    came = [bp for _, bp in new_parses if id(bp) not in old_set]
    for bp in went + came:
        bound |= bp.bound_names
        mentioned |= bp.mentions
    kept_old = [i for i in old_ids if i in new_set]
    kept_new = [i for i in new_ids if i in old_set]
    return Change(gone, bound, mentioned, kept_old != kept_new,
                  frozenset().union(*(bp.bound_names for bp in went)),
                  frozenset().union(*(bp.bound_names for bp in came)),
                  any(_imports(bp) for bp in went + came))


def _imports(bp) -> bool:
    """Whether the block imports at module level."""
    root = bp.root
    return root is not None and any(b.kind == "import" for bs in root.bindings.values() for b in bs)



@dataclass(eq=False)
class Layout:
    """Where the blocks a result read were when it was computed: to move its positions to a
    later text of the module."""

    ranges: list[tuple[int, int, object, int]]  # (first line, last line, BlockParse, line offset)

    @staticmethod
    def of(index, deps: Deps) -> "Layout":
        where = index.block_of_parse()
        out = []
        for key in deps.blocks:
            got = where.get(key)
            if got is not None:
                block, bp = got
                out.append((block.start_line, block.end_line, bp, index._offset[key]))
        out.sort(key=lambda r: r[0])
        return Layout(out)

    def shift_for(self, line: int, index) -> int:
        for first, last, bp, off in self.ranges:
            if first <= line <= last:
                now = index._offset.get(id(bp))
                return 0 if now is None else now - off
        return 0

    def is_identity(self, index) -> bool:
        return all(index._offset.get(id(bp)) == off for _, _, bp, off in self.ranges)


@dataclass(eq=False)
class Entry:
    """One discovery item's result (a call or decorator that may build a launch)."""

    item: object  # the CallSite or DecoratorSite (kept alive so that its id stays unique)
    launch: object  # the Launch, or None when the item builds none
    reached: list = field(default_factory=list)
    deps: Deps = field(default_factory=Deps)
    layout: Layout | None = None
    # Its rules reported something: when the launch is reused, its rules run again on the
    # current text (what they read is in ``deps``; positions are the current text's), or,
    # where nothing it read moved and Change.same_bindings holds, their reports are kept.
    reported: bool = False
    # The rules' reports (engine Candidates), in the positions ``layout`` describes (None: not kept).
    candidates: list | None = None
    kernel_counts: tuple = ()  # how often each of its kernels was launched (fixes ask)


@dataclass(eq=False)
class ModuleMemo:
    """The previous analysis of one document, for the next edit of it."""

    rules_key: tuple
    parses: list
    fingerprint: object
    entries: dict[int, Entry] = field(default_factory=dict)
    wrappers: dict = field(default_factory=dict)  # id(call) -> (call, wrapper verdict, Deps)
