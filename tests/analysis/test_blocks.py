from pallas_lsp.analysis.blocks import split_blocks


def test_statements_decorators_and_clauses():
    text = "import os\n\n@dec\n# comment\ndef f():\n    x = (1,\n2)\n    return x\n\nif a:\n    pass\nelse:\n    pass\n"
    blocks = split_blocks(text)
    starts = [(b.start_line, b.text.splitlines()[0]) for b in blocks]
    assert starts == [(1, "import os"), (3, "@dec"), (10, "if a:")]
    assert "".join(b.text for b in blocks) == text


def test_strings_and_brackets_do_not_split():
    text = 'x = """\ndef not_a_def():\n"""\ny = [\n1,\n]\ndef g(): pass\n'
    blocks = split_blocks(text)
    assert [b.start_line for b in blocks] == [1, 4, 7]


def test_class_members_are_their_own_blocks():
    text = ("class T:\n    a = 1\n\n    @staticmethod\n    def f():\n        return 1\n\n"
            "    def g(self):\n        pass\n")
    blocks = split_blocks(text)
    members = [b for b in blocks if b.kind == "member"]
    assert [(b.start_line, b.owner) for b in members] == [(2, "T"), (4, "T"), (8, "T")]


def test_recovers_from_unclosed_bracket_and_string():
    text = "x = foo(\n\ndef g():\n    pass\ns = '''oops\ndef h():\n    pass\n"
    blocks = split_blocks(text)
    firsts = [b.text.splitlines()[0] for b in blocks]
    assert "def g():" in firsts and "def h():" in firsts


def test_crlf_and_cr_line_breaks():
    text = "a = 1\r\ndef f():\r\n    pass\rb = 2\n"
    blocks = split_blocks(text)
    assert [b.start_line for b in blocks] == [1, 2, 4]


PEP701 = ('import jax\nmsg = f"{\n    1 +  # one\n2}"\nother = f"{"nested"}" + f\'{x!r:>{w}}\'\n'
          'doc = f"""{\n"}"}"""\n\n\ndef later(x):\n    return x\n')


def test_pep701_fstrings_are_scanned_as_python_312_reads_them():
    # Replacement fields hold line breaks, comments and strings in the same quotes.
    blocks = split_blocks(PEP701)
    assert [(b.start_line, b.text.splitlines()[0]) for b in blocks] == [
        (1, "import jax"), (2, 'msg = f"{'), (5, "other = f\"{\"nested\"}\" + f'{x!r:>{w}}'"), (6, 'doc = f"""{'),
        (10, "def later(x):")]
    import sys
    if sys.version_info >= (3, 12):
        import ast

        ast.parse(PEP701)  # (valid Python 3.12)


def test_pep701_file_has_no_syntax_finding():
    from pallas_lsp.rules import analyse

    assert [f.code for f in analyse(PEP701).findings] == []


def test_older_fstrings_and_escapes_split_as_before():
    text = 'a = f"{x}" "b" rf"\\{y}" f"{{z}}" f"\\N{DASH}" f\'{d["k"]:{w}.{p}}\'\nb = 1\n'
    assert [b.start_line for b in split_blocks(text)] == [1, 2]


def test_half_typed_fstring_field_does_not_swallow_the_next_def():
    text = 'x = f"{\ndef g():\n    pass\n'
    firsts = [b.text.splitlines()[0] for b in split_blocks(text)]
    assert "def g():" in firsts


def test_bracket_depth_counts_like_the_tokenizer():
    from pallas_lsp.analysis.blocks import bracket_depth

    assert bracket_depth("x = ((1), [2, {3: (4,)}])\n") == 4
    assert bracket_depth("x = '((((' # ((((\n") == 0
    assert bracket_depth('x = f"{((1))}"\n') == 3


def _reference_logical_lines(text: str) -> list[int]:
    """Logical line starts of code with no strings, comments or backslashes, one character at a
    time (a closer at depth 0 leaves it at 0), as the scanner counted before it counted runs."""
    logical, depth = [0], 0
    for i, line in enumerate(text.split("\n")[:-1]):
        for ch in line:
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth = max(depth - 1, 0)
        if depth == 0:
            logical.append(i + 1)
    return logical


def test_brackets_between_breaks_count_as_one_at_a_time():
    """The scanner counts a run's brackets at once; a closer that would take the depth below
    zero (stray, or before the run's openers) is stepped like the rest."""
    from pallas_lsp.analysis.blocks import _logical_lines, line_starts

    for text in ["x = f(a)[b]{c}\ny = 1\n", "x = (\n1)) + (\n2)\nz = 3\n", ")(\na\n)\nb\n",
                 "a = [1, (2,\n3)]\nb = {\n}\n", "]]]\n(((\n)))\nq\n", "f(g(h(\n)))(\nx)\ny\n"]:
        assert _logical_lines(text, line_starts(text))[0] == _reference_logical_lines(text), text
