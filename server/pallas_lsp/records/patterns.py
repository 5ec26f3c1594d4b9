"""A record's ``messagePattern``: read by Python's own regex parser, refused when its shape
backtracks catastrophically, and run on a linear-time engine.

Two defences, so neither has to be perfect:

1. At load, the parse tree (``re._parser``, the parser ``re`` itself uses) is walked for the
   shapes that make a backtracking matcher take exponential time: a repeated group holding a
   repeated item (``(a+)+``, ``((a)+)+``) and a repeated alternation whose branches can start
   the same way (``(a|a)*``, ``(x|x?)+``). Such a pattern is refused with a message.
2. Whatever passes is translated from that same tree into RE2 syntax and matched by RE2
   (the ``google-re2`` package), whose running time is linear in the text for every pattern.
   Features RE2 cannot run (backreferences, lookaround, atomic groups, possessive
   quantifiers, counts over 1,000) are refused at load too, so a pattern never silently
   changes meaning. If ``google-re2`` is not installed, Python's ``re`` is used, and only for
   patterns with at most one repetition (at worst quadratic in a 4,000-character line).

Matching is line by line (``RecordStore.match``), so ``$`` is the end of the line in both
engines. Known small differences under RE2: ``\\b``/``\\B`` see ASCII word characters only;
case-insensitive matching folds case the Unicode way even under ``(?a)``.
"""
from __future__ import annotations

import functools
import re
import re._constants as sre
import re._parser as sre_parse
from dataclasses import dataclass, field
from typing import Any, Callable

MAX_PATTERN_NESTING = 100  # groups within groups; the parser itself recurses past ~500
# Character tests the backtracking check may make for one pattern (~0.15 s); real patterns
# need a few thousand. Past it the pattern is refused as too complex to check.
MAX_CHECK_WORK = 60_000
# Work units (about a microsecond each): reading and translating a pattern costs about 10 per
# character, one character test of the check about 3, compiling about 3 per RE2 instruction.
# Records files budget them (records/).
PATTERN_CHAR_WORK = 10
PROBE_WORK = 3
PROGRAM_WORK = 3  # per RE2 instruction
RE2_MAX_REPEAT = 1000  # RE2's limit for {m,n}
RE2_MAX_MEM = 2 << 20
MAX_RE2_PROGRAM = 3_000

_MULTI_REPEATS = (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT)

try:  # google-re2; other packages named re2 have other APIs
    import re2 as _re2  # type: ignore[import-not-found]

    if not hasattr(_re2, "Options"):
        _re2 = None
except ImportError:  # pragma: no cover - google-re2 is a dependency
    _re2 = None


class PatternRefused(ValueError):
    """The pattern cannot be used; the message says why, in words for the record's author."""


@dataclass(frozen=True, eq=False)
class RecordPattern:
    """A compiled messagePattern. ``search``/``fullmatch`` answer whether the text matches."""

    pattern: str  # as written in the record
    engine: str  # "re2" or "re"
    _search: Callable[[str], Any] = field(repr=False)
    _fullmatch: Callable[[str], Any] = field(repr=False)

    def search(self, text: str) -> bool:
        return self._run(self._search, text)

    def fullmatch(self, text: str) -> bool:
        return self._run(self._fullmatch, text)

    def _run(self, fn: Callable[[str], Any], text: str) -> bool:
        try:
            return fn(text) is not None
        except UnicodeEncodeError:  # lone surrogates (from JSON) cannot be UTF-8 for RE2
            return fn(text.encode("utf-8", "replace").decode("utf-8")) is not None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RecordPattern) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)


def compile_pattern(pattern: str, *, use_re2: bool = True) -> RecordPattern:
    """The pattern ready to match, or :class:`PatternRefused` saying what is wrong with it."""
    compiled, why, _work = check_pattern(pattern, use_re2=use_re2)
    if why is not None:
        raise PatternRefused(why)
    return compiled


def linear_engine_available() -> bool:
    """Whether google-re2 is here (a dependency; a bare environment may lack it)."""
    return _re2 is not None


def deferred_pattern(pattern: str) -> RecordPattern:
    """A shipped record's pattern, checked and compiled when first matched. The shipped
    patterns are checked by the tests (tests/records/test_patterns.py) for RE2, and nothing the
    server does before its first diagnostics matches one: compiling them all took 13 ms of that.
    Only with RE2 (without it some shipped patterns are refused, and that must show at load),
    and a user's records are always checked when they load, so a bad pattern is reported there."""
    @functools.cache
    def matcher() -> RecordPattern:
        return compile_pattern(pattern)

    return RecordPattern(pattern, "re2",
                         lambda text: matcher()._search(text), lambda text: matcher()._fullmatch(text))


def check_pattern(pattern: str, *, use_re2: bool = True) -> tuple[RecordPattern | None, str | None, int]:
    """(the compiled pattern, None, work) or (None, why it is refused, work). ``work`` is what
    reading and checking it cost (PATTERN_CHAR_WORK per character plus the character tests of
    the backtracking check), the same every time, for a caller's budget. The verdict is cached
    by pattern text (a records file read again costs little); each call compiles its own
    matcher, so the cache holds no matcher memory."""
    engine, source, why, work = _check_cached(pattern, bool(use_re2 and _re2 is not None))
    if why is not None:
        return None, why, work
    if engine == "re2":
        compiled = _re2.compile(source, _re2_options())
    else:
        compiled = re.compile(source)
    return RecordPattern(pattern, engine, compiled.search, compiled.fullmatch), None, work


@functools.lru_cache(maxsize=8192)
def _check_cached(pattern: str, use_re2: bool) -> tuple[str, str, str | None, int]:
    """(engine, source for it, why refused or None, work)."""
    work = PATTERN_CHAR_WORK * len(pattern)
    probes = None
    engine = "re2" if use_re2 else "re"
    try:
        tree = _parse(pattern, validate_with_re=not use_re2)
        probes = _Probes(tree)
        hazard = _hazard(list(tree), False, probes)
        if hazard:
            raise PatternRefused(hazard)
        if use_re2:
            source, size = _re2_source(tree)
            work += PROGRAM_WORK * size  # compiling it (twice on first sight)
        else:
            source = _re_source(pattern, tree)
    except PatternRefused as exc:
        return engine, "", str(exc), work + (probes.work * PROBE_WORK if probes else 0)
    except RecursionError:
        return engine, "", f"groups nested too deeply (more than {MAX_PATTERN_NESTING})", work
    return engine, source, None, work + probes.work * PROBE_WORK


def _re2_options():
    options = _re2.Options()
    options.log_errors = False  # RE2 would print every refusal to stderr
    options.never_capture = True  # only "does it match" is asked: lets RE2 use its DFA
    # Program and DFA state cache of one pattern (RE2 falls back to its NFA, still linear, when
    # the DFA cache fills): thousands of records cannot take more than a few MB each.
    options.max_mem = RE2_MAX_MEM
    return options


def _re2_source(tree: sre_parse.SubPattern) -> tuple[str, int]:
    """The RE2 source and its program size (instructions), or PatternRefused."""
    source = to_re2(tree)
    try:
        size = _re2.compile(source, _re2_options()).programsize
    except _re2.error as exc:
        why = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise PatternRefused(f"the linear-time matcher (RE2) cannot run it: {why}") from None
    if size > MAX_RE2_PROGRAM:
        # Matching time is linear in the text but grows with the program (RE2's NFA, when its
        # DFA cache overflows, steps every instruction for every character).
        raise PatternRefused(f"expands to {size} matcher instructions (more than {MAX_RE2_PROGRAM}): "
                             "large counted repetitions like {1,200}; use + or * or smaller counts")
    return source, size


def _re_source(pattern: str, tree: sre_parse.SubPattern) -> str:
    repeats = _count_multi_repeats(tree)
    if repeats > 1:
        raise PatternRefused(f"{repeats} repetitions, and without the google-re2 package only patterns with "
                             "at most one repetition are matched (install google-re2)")
    return pattern


def _parse(pattern: str, *, validate_with_re: bool) -> sre_parse.SubPattern:
    try:
        tree = sre_parse.parse(pattern)
    except RecursionError:
        raise PatternRefused(f"groups nested too deeply (more than {MAX_PATTERN_NESTING})") from None
    except (re.error, OverflowError, ValueError) as exc:
        raise PatternRefused(f"invalid regular expression: {exc}") from None
    if _nesting(tree) > MAX_PATTERN_NESTING:
        raise PatternRefused(f"groups nested too deeply (more than {MAX_PATTERN_NESTING})")
    if validate_with_re:  # the compiler finds a few errors the parser does not; RE2 checks for itself
        try:
            re.compile(pattern)
        except (re.error, OverflowError, RecursionError, ValueError) as exc:
            raise PatternRefused(f"invalid regular expression: {exc}") from None
    return tree


def _children(op: Any, av: Any) -> list[list]:
    """The sub-sequences of one parse-tree item."""
    if op in _MULTI_REPEATS:
        return [av[2]]
    if op is sre.SUBPATTERN:
        return [av[3]]
    if op is sre.BRANCH:
        return list(av[1])
    if op in (sre.ASSERT, sre.ASSERT_NOT):
        return [av[1]]
    if op is sre.ATOMIC_GROUP:
        return [av]
    if op is sre.GROUPREF_EXISTS:
        return [av[1]] + ([av[2]] if av[2] is not None else [])
    return []


def _nesting(tree: Any) -> int:
    deepest, stack = 0, [(list(tree), 0)]
    while stack:
        items, depth = stack.pop()
        deepest = max(deepest, depth)
        for op, av in items:
            stack += [(list(child), depth + 1) for child in _children(op, av)]
    return deepest


def _is_multi(op: Any, av: Any) -> bool:
    return op in _MULTI_REPEATS and (av[1] is sre.MAXREPEAT or av[1] > 1)


def _count_multi_repeats(tree: Any) -> int:
    count, stack = 0, [list(tree)]
    while stack:
        for op, av in stack.pop():
            count += _is_multi(op, av)
            stack += [list(c) for c in _children(op, av)]
    return count


# --- the backtracking check ---------------------------------------------------------------------
NESTED_MESSAGE = ("nested repetition: a repeated group contains a repeated item (like (a+)+ or ((a)+)+), "
                  "which can backtrack catastrophically; rewrite the pattern")
OVERLAP_MESSAGE = ("a repeated alternation whose branches can match the same text (like (a|a)* or (x|x?)+), "
                   "which can backtrack catastrophically; rewrite the pattern")


def backtracking_hazard(tree: sre_parse.SubPattern) -> str | None:
    """Why the parsed pattern can take exponential time in a backtracking matcher, or None."""
    try:
        return _hazard(list(tree), False, _Probes(tree))
    except PatternRefused as exc:
        return str(exc)


def _hazard(items: list, in_repeat: bool, probes: "_Probes") -> str | None:
    for i, (op, av) in enumerate(items):
        if op in _MULTI_REPEATS:
            multi = _is_multi(op, av)
            fixed = av[0] == av[1]  # x{3}: one way to match, nothing to choose
            if in_repeat and multi and not fixed:
                return NESTED_MESSAGE
            why = _hazard(list(av[2]), in_repeat or multi, probes)
        elif op is sre.BRANCH:
            if in_repeat and _branches_overlap(av[1], items[i + 1:], probes):
                return OVERLAP_MESSAGE
            why = next((w for b in av[1] if (w := _hazard(list(b), in_repeat, probes))), None)
        else:
            why = next((w for c in _children(op, av) if (w := _hazard(list(c), in_repeat, probes))), None)
        if why:
            return why
    return None


def _branches_overlap(branches: list, rest: list, probes: "_Probes") -> bool:
    """Can two branches (each followed by what comes after the alternation) start with the same
    character? A branch that can match nothing at all counts as starting with anything."""
    rest_first, rest_nullable = probes.first(rest)
    seen: set = set()
    for branch in branches:
        first, nullable = probes.first(list(branch))
        if nullable:
            first = probes.everything if rest_nullable else first | rest_first
        if seen & first:
            return True
        seen |= first
    return False


class _Probes:
    """First-character sets as sets of sample characters: every ASCII and Latin-1 character,
    every character the pattern names (and its case variants), and a few from other scripts.
    Two classes that share a character share one of these in practice."""

    def __init__(self, tree: sre_parse.SubPattern) -> None:
        flags = tree.state.flags
        self.ignorecase = bool(flags & sre.SRE_FLAG_IGNORECASE)
        self.dotall = bool(flags & sre.SRE_FLAG_DOTALL)
        self.ascii = bool(flags & sre.SRE_FLAG_ASCII)
        chars = {chr(c) for c in range(0x180)} | set("\u0660\u0416\u0436\u4e2d\u00a0\u2028\u3000\u212a\U0001F600")
        stack = [list(tree)]
        while stack:
            for op, av in stack.pop():
                if op is sre.SUBPATTERN and av[1] & sre.SRE_FLAG_IGNORECASE:
                    self.ignorecase = True  # conservative: fold everywhere
                if op in (sre.LITERAL, sre.NOT_LITERAL):
                    chars.add(chr(av))
                elif op is sre.IN:
                    for iop, iav in av:
                        if iop is sre.LITERAL:
                            chars.add(chr(iav))
                        elif iop is sre.RANGE:
                            chars |= {chr(iav[0]), chr(iav[1])}
                stack += [list(c) for c in _children(op, av)]
        if self.ignorecase:
            chars |= {v for c in chars for v in (c.lower(), c.upper(), c.casefold()) if len(v) == 1}
        self.chars = frozenset(chars)
        self.everything = self.chars
        self._item_sets: dict = {}  # one character item -> the probes it matches
        self.work = 0

    def first(self, items: list) -> tuple[frozenset, bool]:
        """(characters a match can start with, whether it can match the empty string)."""
        acc: set = set()
        for op, av in items:
            if op in (sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN):
                return frozenset(acc | self._item_set(op, av)), False
            if op in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
                continue  # zero-width
            if op in (sre.GROUPREF, sre.GROUPREF_EXISTS):
                acc |= self.everything  # whatever the group took
                continue
            if op is sre.BRANCH:
                firsts = [self.first(list(b)) for b in av[1]]
                for f, _ in firsts:
                    acc |= f
                if not any(n for _, n in firsts):
                    return frozenset(acc), False
                continue
            body = _children(op, av)[0] if _children(op, av) else []
            f, nullable = self.first(list(body))
            acc |= f
            min_count = av[0] if op in _MULTI_REPEATS else 1
            if not nullable and min_count > 0:
                return frozenset(acc), False
        return frozenset(acc), True

    def _item_set(self, op: Any, av: Any) -> frozenset:
        key = (op, av) if op is not sre.IN else (op, repr(av))
        got = self._item_sets.get(key)
        if got is None:
            self.work += len(self.chars) if op is sre.IN or op is sre.ANY or self.ignorecase else 1
            if self.work > MAX_CHECK_WORK:
                raise PatternRefused("too complex to check for catastrophic backtracking (many different "
                                     "alternatives or character classes under repetition); simplify it")
            if op in (sre.LITERAL, sre.NOT_LITERAL):  # no need to test every probe
                same = self._case_variants(chr(av)) & self.chars
                got = frozenset(same) if op is sre.LITERAL else self.chars - same
            else:
                got = frozenset(c for c in self.chars if self._member(op, av, c))
            self._item_sets[key] = got
        return got

    def _case_variants(self, ch: str) -> set:
        if not self.ignorecase:
            return {ch}
        out = {ch} | {v for v in (ch.lower(), ch.upper(), ch.casefold()) if len(v) == 1}
        return out | {c for c in self.chars if c.lower() in out or c.upper() in out}

    def _member(self, op: Any, av: Any, ch: str) -> bool:
        variants = {ch, ch.lower(), ch.upper()} if self.ignorecase else {ch}
        return any(self._member_exact(op, av, v) for v in variants if len(v) == 1)

    def _member_exact(self, op: Any, av: Any, ch: str) -> bool:
        if op is sre.LITERAL:
            return ord(ch) == av
        if op is sre.NOT_LITERAL:
            return ord(ch) != av
        if op is sre.ANY:
            return self.dotall or ch != "\n"
        items = list(av)
        negate = bool(items) and items[0][0] is sre.NEGATE
        hit = False
        for iop, iav in items[1:] if negate else items:
            if iop is sre.LITERAL:
                hit = ord(ch) == iav
            elif iop is sre.RANGE:
                hit = iav[0] <= ord(ch) <= iav[1]
            elif iop is sre.CATEGORY:
                hit = _in_category(iav, ch, self.ascii)
            if hit:
                break
        return hit != negate


def _in_category(cat: Any, ch: str, ascii_only: bool) -> bool:
    if ascii_only and not ch.isascii():
        return cat in (sre.CATEGORY_NOT_DIGIT, sre.CATEGORY_NOT_WORD, sre.CATEGORY_NOT_SPACE)
    positive = {sre.CATEGORY_DIGIT: ch.isdecimal(),
                sre.CATEGORY_WORD: ch.isalnum() or ch == "_",
                sre.CATEGORY_SPACE: ch.isspace()}
    negated = {sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
               sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE}
    if cat in positive:
        return positive[cat]
    if cat in negated:
        return not positive[negated[cat]]
    return True  # line-break categories are not produced by the parser; assume overlap


# --- translation to RE2 syntax ------------------------------------------------------------------
# Python's str patterns mean the Unicode classes; RE2's \d \w \s are ASCII, so spell them out.
_UNICODE_CLASS_BODY = {
    sre.CATEGORY_DIGIT: r"\p{Nd}",
    sre.CATEGORY_WORD: r"\p{L}\p{N}_",
    sre.CATEGORY_SPACE: r"\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}"
                        r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}",
}
_ASCII_CLASS_BODY = {
    sre.CATEGORY_DIGIT: "0-9",
    sre.CATEGORY_WORD: "0-9A-Za-z_",
    sre.CATEGORY_SPACE: r"\t\n\x0b\x0c\r ",
}
_NEGATED_CATEGORY = {sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT, sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
                     sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE}
_AT = {sre.AT_BEGINNING: "^", sre.AT_END: "$", sre.AT_BEGINNING_STRING: r"\A", sre.AT_END_STRING: r"\z",
       sre.AT_BOUNDARY: r"\b", sre.AT_NON_BOUNDARY: r"\B"}
_UNSUPPORTED = {
    sre.GROUPREF: "backreferences",
    sre.GROUPREF_EXISTS: "conditional groups",
    sre.ASSERT: "lookahead and lookbehind",
    sre.ASSERT_NOT: "lookahead and lookbehind",
    sre.ATOMIC_GROUP: "atomic groups",
    sre.POSSESSIVE_REPEAT: "possessive quantifiers",
}


def to_re2(tree: sre_parse.SubPattern) -> str:
    """The parsed Python pattern written in RE2 syntax, meaning the same on the lines we match."""
    flags = tree.state.flags
    prefix = "".join(letter for bit, letter in ((sre.SRE_FLAG_IGNORECASE, "i"), (sre.SRE_FLAG_MULTILINE, "m"),
                                                 (sre.SRE_FLAG_DOTALL, "s")) if flags & bit)
    body = _seq(list(tree), bool(flags & sre.SRE_FLAG_ASCII))
    return f"(?{prefix}){body}" if prefix else body


def _seq(items: list, ascii_only: bool) -> str:
    return "".join(_item(op, av, ascii_only) for op, av in items)


def _char(code: int) -> str:
    c = chr(code)
    return c if c.isascii() and c.isalnum() else "\\x{%x}" % code


def _item(op: Any, av: Any, ascii_only: bool) -> str:
    if op in _UNSUPPORTED:
        raise PatternRefused(f"uses {_UNSUPPORTED[op]}, which the linear-time matcher (RE2) cannot run")
    if op is sre.LITERAL:
        return _char(av)
    if op is sre.NOT_LITERAL:
        return "[^%s]" % _char(av)
    if op is sre.ANY:
        return "."
    if op is sre.AT:
        if av not in _AT:
            raise PatternRefused(f"uses the anchor {av}, which the linear-time matcher (RE2) cannot run")
        return _AT[av]
    if op is sre.IN:
        return _char_class(list(av), ascii_only)
    if op is sre.BRANCH:
        return "(?:" + "|".join(_seq(list(b), ascii_only) for b in av[1]) + ")"
    if op is sre.SUBPATTERN:
        _group, add, remove, body = av
        inner_ascii = (ascii_only or bool(add & sre.SRE_FLAG_ASCII)) and not remove & sre.SRE_FLAG_ASCII
        on = "".join(letter for bit, letter in ((sre.SRE_FLAG_IGNORECASE, "i"), (sre.SRE_FLAG_MULTILINE, "m"),
                                      (sre.SRE_FLAG_DOTALL, "s")) if add & bit)
        off = "".join(letter for bit, letter in ((sre.SRE_FLAG_IGNORECASE, "i"), (sre.SRE_FLAG_MULTILINE, "m"),
                                       (sre.SRE_FLAG_DOTALL, "s")) if remove & bit)
        mods = on + (f"-{off}" if off else "")
        return f"(?{mods}:" + _seq(list(body), inner_ascii) + ")"
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
        low, high, body = av
        if low > RE2_MAX_REPEAT or (high is not sre.MAXREPEAT and high > RE2_MAX_REPEAT):
            raise PatternRefused(f"repeats something more than {RE2_MAX_REPEAT} times, more than the "
                                 "linear-time matcher (RE2) allows")
        if high is sre.MAXREPEAT:
            count = {0: "*", 1: "+"}.get(low, "{%d,}" % low)
        elif (low, high) == (0, 1):
            count = "?"
        elif low == high:
            count = "{%d}" % low
        else:
            count = "{%d,%d}" % (low, high)
        lazy = "?" if op is sre.MIN_REPEAT else ""
        return "(?:" + _seq(list(body), ascii_only) + ")" + count + lazy
    raise PatternRefused(f"uses {op}, which the linear-time matcher (RE2) cannot run")


def _char_class(items: list, ascii_only: bool) -> str:
    table = _ASCII_CLASS_BODY if ascii_only else _UNICODE_CLASS_BODY
    negate = bool(items) and items[0][0] is sre.NEGATE
    if negate:
        items = items[1:]
    body, complements = [], []
    for op, av in items:
        if op is sre.LITERAL:
            body.append(_char(av))
        elif op is sre.RANGE:
            body.append(f"{_char(av[0])}-{_char(av[1])}")
        elif op is sre.CATEGORY and av in table:
            body.append(table[av])
        elif op is sre.CATEGORY and av in _NEGATED_CATEGORY:
            complements.append(table[_NEGATED_CATEGORY[av]])
        else:
            raise PatternRefused(f"uses the character class item {op} {av}, which the linear-time matcher "
                                 "(RE2) cannot run")
    if not complements:
        return ("[^%s]" if negate else "[%s]") % "".join(body)
    if negate:  # [^\W...] would be an intersection; RE2 classes have none
        if body or len(complements) > 1:
            raise PatternRefused("a negated character class holding \\W, \\S or \\D together with other items, "
                                 "which the linear-time matcher (RE2) cannot express; rewrite it")
        return "[%s]" % complements[0]  # [^\W] is \w
    parts = (["[%s]" % "".join(body)] if body else []) + ["[^%s]" % c for c in complements]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
