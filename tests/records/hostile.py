"""Hostile record data shared by the record tests and the LSP tests, and a check that Markdown
makes no link but https: ones."""
import re

from pallas_lsp.records import builtin_records

BUILTIN_SLUG = "get-global-discharge-is-not-supported-in-interpret"
HOSTILE_TEXT = ("[click](javascript:alert(1)) <javascript:alert(2)> <img src=x onerror=alert(3)> "
                "[ref]: javascript:alert(4) \\[x](command:workbench.action.terminal.new) \x1b[31mred\x1b[0m")


def hostile_override() -> dict:
    """A workspace record taking a built-in record's slug, with hostile links everywhere."""
    (builtin,) = [r for r in builtin_records()[0] if r.slug == BUILTIN_SLUG]
    raw = dict(builtin.raw)
    raw.update(githubUrl="javascript:alert(1)", documentation=HOSTILE_TEXT, triggerScenarios=HOSTILE_TEXT,
               solutions=[HOSTILE_TEXT], exampleFix="x = 1\n```\n[fence](javascript:alert(5))\n```",
               filePath="[p](javascript:alert(6))")
    return {"record": raw}


def markdown_links(md: str) -> list[str]:
    """Link targets, autolinks and HTML tags a CommonMark renderer would make of ``md``
    (outside code spans and fenced blocks; a backslash-escaped character makes nothing)."""
    md = re.sub(r"(?ms)^(`{3,})[^\n]*\n.*?^\1[ \t]*$", "", md)  # fenced blocks
    md = re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", md)  # code spans

    def unescaped(m: re.Match) -> bool:
        backslashes = len(m.group(1))
        return backslashes % 2 == 0

    found = [m.group(2) for m in re.finditer(r"(\\*)\]\(([^)\s]*)", md) if unescaped(m)]
    found += [m.group(2) for m in re.finditer(r"(\\*)<([A-Za-z][A-Za-z0-9+.-]*:[^<>\s]*)>", md) if unescaped(m)]
    found += ["<html>" for m in re.finditer(r"(\\*)<[A-Za-z/!?]", md) if unescaped(m)]
    found += [m.group(2) for m in re.finditer(r"(?m)^ {0,3}(\\*)\[[^\]]*\]:\s*(\S+)", md) if unescaped(m)]
    return found


def only_https(md: str) -> None:
    links = markdown_links(md)
    assert all(link.startswith("https://") for link in links), links
    assert "\x1b" not in md
