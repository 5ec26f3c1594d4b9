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
    text = "class T:\n    a = 1\n\n    @staticmethod\n    def f():\n        return 1\n\n    def g(self):\n        pass\n"
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
