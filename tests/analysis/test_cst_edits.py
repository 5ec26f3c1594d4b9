"""libcst edits located by ast positions: only the changed region is replaced, and comments,
trailing commas, multi-line calls, decorators and import styles are kept."""
from __future__ import annotations

import ast

import pytest

from pallas_lsp.analysis import api, cst_edits
from pallas_lsp.analysis.blocks import split_blocks
from pallas_lsp.analysis.edits import apply_edits
from pallas_lsp.analysis.findings import TextEdit
from pallas_lsp.analysis.fixes import add_kwarg, ensure_import, remove_kwarg
from pallas_lsp.analysis.module import ModuleIndex, Span


def span_of(text: str, pred) -> Span:
    node = next(n for n in ast.walk(ast.parse(text)) if pred(n))
    line = text.splitlines()[node.lineno - 1]
    col = len(line.encode()[:node.col_offset].decode())  # (code points, as the index gives them)
    end_line = text.splitlines()[node.end_lineno - 1]
    end_col = len(end_line.encode()[:node.end_col_offset].decode())
    return Span(node.lineno, col, node.end_lineno, end_col)


def is_call(name):
    return lambda n: isinstance(n, ast.Call) and getattr(n.func, "id", getattr(n.func, "attr", None)) == name


def edit(op, text, pred, *args):
    e = op(text, split_blocks(text), span_of(text, pred), *args)
    return e, (apply_edits(text, [e]) if e is not None else text)


# --- keywords ------------------------------------------------------------------------------------
def test_a_keyword_is_added_as_a_minimal_insertion_on_one_line():
    e, out = edit(cst_edits.set_keyword, "y = f(a, b)  # keep\n", is_call("f"), "k", '"v"')
    assert e == TextEdit(Span(1, 10, 1, 10), ', k="v"')
    assert out == 'y = f(a, b, k="v")  # keep\n'
    assert edit(cst_edits.set_keyword, "y = f()\n", is_call("f"), "k", "1")[1] == "y = f(k=1)\n"
    assert edit(cst_edits.set_keyword, "y = f(a,)\n", is_call("f"), "k", "1")[1] == "y = f(a, k=1,)\n"


def test_a_multiline_call_gets_its_own_line_and_keeps_trailing_comma_and_comments():
    text = "y = f(\n    a,  # first\n    b,  # second\n)\n"
    e, out = edit(cst_edits.set_keyword, text, is_call("f"), "k", "1")
    assert e == TextEdit(Span(4, 0, 4, 0), "    k=1,\n")
    assert out == "y = f(\n    a,  # first\n    b,  # second\n    k=1,\n)\n"
    # No trailing comma: the comment stays on the line of the argument it follows.
    text = "y = f(\n    a,\n    b  # second\n)\n"
    assert edit(cst_edits.set_keyword, text, is_call("f"), "k", "1")[1] == \
        "y = f(\n    a,\n    b,  # second\n    k=1\n)\n"
    # Arguments after the opening bracket on its line: continued there.
    assert edit(cst_edits.set_keyword, "y = f(a,\n      b)\n", is_call("f"), "k", "1")[1] == \
        "y = f(a,\n      b, k=1)\n"


def test_an_existing_keyword_gets_its_value_replaced_in_place():
    text = "y = f(\n    a,\n    k=2,  # the old one\n)\n"
    e, out = edit(cst_edits.set_keyword, text, is_call("f"), "k", "(1, 2)")
    assert e == TextEdit(Span(3, 6, 3, 7), "(1, 2)")
    assert "k=(1, 2),  # the old one\n" in out


def test_a_keyword_is_removed_with_its_comma_and_the_rest_kept():
    cases = {
        "y = f(a, k=1)  # c\n": "y = f(a)  # c\n",
        "y = f(k=1, b=2)\n": "y = f(b=2)\n",
        "y = f(a, k=1,)\n": "y = f(a,)\n",
        "y = f(\n    a,  # first\n    k=1,  # gone\n)\n": "y = f(\n    a,  # first\n)\n",
        "y = f(\n    k=1,  # gone\n    b=2,\n)\n": "y = f(\n    b=2,\n)\n",
        "y = f(\n    k=1,\n)\n": "y = f()\n",
    }
    for text, want in cases.items():
        assert edit(cst_edits.remove_keyword, text, is_call("f"), "k")[1] == want, text
    assert cst_edits.remove_keyword("f(a)\n", split_blocks("f(a)\n"), Span(1, 0, 1, 4), "k") is None


def test_the_call_is_found_among_nested_and_parenthesised_calls():
    text = "y = g(f(a), (f)(b))\n"
    e, out = edit(cst_edits.set_keyword, text, lambda n: isinstance(n, ast.Call) and getattr(n.func, "id", "") == "g",
                  "k", "1")
    assert out == "y = g(f(a), (f)(b), k=1)\n"
    # The inner one of the same start: ``f(a)(b)`` is two calls starting at f.
    text = "y = f(a)(b)\n"
    inner = lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Name)  # noqa: E731
    assert edit(cst_edits.set_keyword, text, inner, "k", "1")[1] == "y = f(a, k=1)(b)\n"


# --- defs, lists, statements ----------------------------------------------------------------------
def is_def(name):
    return lambda n: isinstance(n, ast.FunctionDef) and n.name == name


def test_a_parameter_is_appended_and_decorators_and_comments_stay():
    text = "@functools.partial(\n    jax.jit,  # keep\n)\ndef kernel(x_ref, o_ref):  # the kernel\n    pass\n"
    e, out = edit(cst_edits.append_parameter, text, is_def("kernel"), "sem")
    assert e == TextEdit(Span(4, 23, 4, 23), ", sem")
    assert out == ("@functools.partial(\n    jax.jit,  # keep\n)\n"
                   "def kernel(x_ref, o_ref, sem):  # the kernel\n    pass\n")
    text = "def kernel(\n    x_ref,  # in\n    o_ref,  # out\n):\n    pass\n"
    assert edit(cst_edits.append_parameter, text, is_def("kernel"), "sem")[1] == \
        "def kernel(\n    x_ref,  # in\n    o_ref,  # out\n    sem,\n):\n    pass\n"
    # A method of a class (parsed as a member block) and positional-only parameters.
    text = "class K:\n    def kernel(self, x):\n        pass\n"
    assert "def kernel(self, x, sem):" in edit(cst_edits.append_parameter, text, is_def("kernel"), "sem")[1]
    assert "def kernel(x, sem, /):" in edit(cst_edits.append_parameter, "def kernel(x, /):\n    pass\n",
                                           is_def("kernel"), "sem")[1]
    with pytest.raises(cst_edits.EditFailed):
        edit(cst_edits.append_parameter, "def kernel(x, *rest):\n    pass\n", is_def("kernel"), "sem")


def is_seq(n):
    return isinstance(n, (ast.List, ast.Tuple))


def test_an_element_is_appended_to_a_list_or_tuple_in_its_layout():
    cases = {
        "s = [a, b]\n": "s = [a, b, c]\n",
        "s = []\n": "s = [c]\n",
        "s = [\n    a,  # one\n    b,  # two\n]\n": "s = [\n    a,  # one\n    b,  # two\n    c,\n]\n",
        "s = [\n    a,\n    b  # two\n]\n": "s = [\n    a,\n    b,  # two\n    c\n]\n",
        "s = (a,)\n": "s = (a, c,)\n",
        "s = ()\n": "s = (c,)\n",
    }
    for text, want in cases.items():
        assert edit(cst_edits.append_element, text, is_seq, "c")[1] == want, text


def is_assign(name):
    return lambda n: isinstance(n, ast.Assign) and getattr(n.targets[0], "id", None) == name


def test_a_statement_is_deleted_and_the_comments_above_it_stay():
    text = "def k():\n    a = 1\n    # why b follows\n    s = g()  # gone with it\n    b = 2\n"
    e, out = edit(cst_edits.delete_statement, text, is_assign("s"))
    assert e == TextEdit(Span(4, 0, 5, 0), "")
    assert out == "def k():\n    a = 1\n    # why b follows\n    b = 2\n"
    assert edit(cst_edits.delete_statement, "def k():\n    a = 1; s = g(); b = 2\n", is_assign("s"))[1] == \
        "def k():\n    a = 1; b = 2\n"
    assert edit(cst_edits.delete_statement, "def k():\n    a = 1; s = g()\n", is_assign("s"))[1] == \
        "def k():\n    a = 1\n"
    # The only statement of a body: ``pass`` keeps it a body.
    assert edit(cst_edits.delete_statement, "def k():\n    s = g()\n", is_assign("s"))[1] == "def k():\n    pass\n"


def test_windows_line_breaks_are_kept_and_never_split():
    text = "def k():\r\n    a = 1\r\n    s = g()\r\n    b = 2\r\n"
    assert edit(cst_edits.delete_statement, text, is_assign("s"))[1] == "def k():\r\n    a = 1\r\n    b = 2\r\n"
    text = "y = f(\r\n    a,\r\n)\r\n"
    assert edit(cst_edits.set_keyword, text, is_call("f"), "k", "1")[1] == "y = f(\r\n    a,\r\n    k=1,\r\n)\r\n"


def test_columns_are_code_points():
    text = 'y = f("é✓", b)\n'
    e, out = edit(cst_edits.set_keyword, text, is_call("f"), "k", "1")
    assert e.span == Span(1, 13, 1, 13) and out == 'y = f("é✓", b, k=1)\n'


# --- imports -------------------------------------------------------------------------------------
def test_imports_are_placed_by_libcst_after_the_docstring_future_and_existing_imports():
    text = '"""Doc."""\nfrom __future__ import annotations\n\nimport jax\n\nx = 1\n'
    e = cst_edits.add_import(text, "functools")
    assert e == TextEdit(Span(5, 0, 5, 0), "import functools\n")
    assert cst_edits.add_import("import functools\n", "functools") is None
    e = cst_edits.add_import("from jax.experimental import pallas as pl\n\nx = 1\n", "jax.experimental.pallas",
                             "mosaic_gpu", "plgpu")
    assert e == TextEdit(Span(2, 0, 2, 0), "from jax.experimental.pallas import mosaic_gpu as plgpu\n")


def test_ensure_import_follows_the_modules_import_style():
    frm = "import jax\nfrom jax.experimental import pallas as pl\n\nx = 1\n"
    name, e = ensure_import(ModuleIndex(frm, "m.py"), api.PLGPU)
    assert name == "plgpu" and e.new_text == "from jax.experimental.pallas import mosaic_gpu as plgpu\n"
    plain = "import jax\nimport jax.experimental.pallas as pl\n\nx = 1\n"
    name, e = ensure_import(ModuleIndex(plain, "m.py"), api.PLGPU)
    assert name == "plgpu" and e.new_text == "import jax.experimental.pallas.mosaic_gpu as plgpu\n"
    # The conventional name is taken: the module's full name, imported plainly.
    taken = frm + "plgpu = 3\n"
    name, e = ensure_import(ModuleIndex(taken, "m.py"), api.PLGPU)
    assert name == api.PLGPU and e.new_text == f"import {api.PLGPU}\n"
    # Imported already, under any name: nothing to add.
    assert ensure_import(ModuleIndex("import jax.experimental.pallas.mosaic_gpu as mg\n", "m.py"), api.PLGPU) == \
        ("mg", None)
    name, e = ensure_import(ModuleIndex("import jax\n\n@jax.jit\ndef f(x):\n    return x\n", "m.py"), "functools")
    assert name == "functools" and e == TextEdit(Span(2, 0, 2, 0), "import functools\n")


# --- through the index (the rules' entry points) ----------------------------------------------------
def call_site(index: ModuleIndex, name: str):
    (site,) = [s for s in index.calls_to({name})
               if getattr(s.node.func, "attr", getattr(s.node.func, "id", "")) == name]
    return site


def test_add_and_remove_kwarg_through_the_index_keep_a_multiline_launch():
    text = ("import jax\n\n\ndef main(x):\n    return pl.pallas_call(\n        kernel,  # the kernel\n"
            "        out_shape=x,\n        interpret=True,  # for now\n    )(x)\n")
    index = ModuleIndex(text, "m.py")
    site = call_site(index, "pallas_call")
    fixed = apply_edits(text, [add_kwarg(index, site.node, site.scope, "debug", "True")])
    assert "        interpret=True,  # for now\n        debug=True,\n    )(x)\n" in fixed
    fixed = apply_edits(text, [remove_kwarg(index, site.node, site.scope, "interpret")])
    assert fixed.endswith("        kernel,  # the kernel\n        out_shape=x,\n    )(x)\n")
    assert remove_kwarg(index, site.node, site.scope, "grid") is None


def test_a_fix_whose_result_would_not_parse_is_never_built():
    text = "y = f(a)\n"
    index = ModuleIndex(text, "m.py")
    site = call_site(index, "f")
    with pytest.raises(cst_edits.EditFailed):
        add_kwarg(index, site.node, site.scope, "k", '"unterminated')
    blocks = split_blocks(text)
    assert not cst_edits.edits_parse(text, blocks, [TextEdit(Span(1, 7, 1, 7), ", )")])
    assert cst_edits.edits_parse(text, blocks, [TextEdit(Span(1, 7, 1, 7), ", b")])
    assert not cst_edits.edits_parse(text, blocks, [TextEdit(Span(1, 0, 1, 3), "x"), TextEdit(Span(1, 1, 1, 2), "")])


def test_minimal_edit_replaces_only_what_changed():
    assert cst_edits.minimal_edit("a\nb\nc\n", "a\nb\nX\nc\n") == TextEdit(Span(3, 0, 3, 0), "X\n")
    assert cst_edits.minimal_edit("f(a, b)\n", "f(a, c)\n") == TextEdit(Span(1, 5, 1, 6), "c")
    assert cst_edits.minimal_edit("x\r\ny\r\n", "x\r\nz\r\ny\r\n") == TextEdit(Span(2, 0, 2, 0), "z\r\n")


def test_an_import_is_placed_from_the_top_of_the_module_alone():
    # Only the leading imports (and the statement after them) are parsed: the same place.
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(200))
    for head in ('"""Doc."""\nimport jax\nfrom jax.experimental import pallas as pl\n\n\n', "# a comment\n\n", ""):
        text = head + body
        assert cst_edits.add_import(text, "functools", blocks=split_blocks(text)) == \
            cst_edits.add_import(text, "functools"), head
    text = "import jax\n\n\nclass K:\n    x = 1\n"
    assert cst_edits.add_import(text, "functools", blocks=split_blocks(text)) == \
        TextEdit(Span(2, 0, 2, 0), "import functools\n")


def test_a_value_names_modules_as_the_module_imports_them():
    from pallas_lsp.analysis.fixes import value_in_module

    index = ModuleIndex("import jax\nfrom jax.experimental.pallas import mosaic_gpu as mgpu\n\nx = 1\n", "m.py")
    assert value_in_module(index, "{jax.experimental.pallas.mosaic_gpu}.InterpretGPUParams()") == \
        ("mgpu.InterpretGPUParams()", ())
    index = ModuleIndex("import jax\nfrom jax.experimental import pallas as pl\n\nx = 1\n", "m.py")
    value, edits = value_in_module(index,
                                   "{jax.experimental.pallas.mosaic_gpu}.X({jax.experimental.pallas.mosaic_gpu}.Y)")
    assert value == "plgpu.X(plgpu.Y)"
    assert edits == (TextEdit(Span(3, 0, 3, 0), "from jax.experimental.pallas import mosaic_gpu as plgpu\n"),)


def test_a_block_beyond_libcsts_bounds_gets_the_column_edit_checked_by_pythons_parser():
    # An operator chain libcst is never asked about (docs/security.md): the call still gets its
    # keyword, from ast columns, and the edited text parses.
    chain = " + ".join(["x"] * 400)
    text = f"def main(x):\n    y = {chain}\n    return f(y)\n"
    blocks = split_blocks(text)
    with pytest.raises(cst_edits.EditFailed):
        cst_edits.set_keyword(text, blocks, span_of(text, is_call("f")), "k", "1")
    index = ModuleIndex(text, "m.py")
    site = call_site(index, "f")
    fixed = apply_edits(text, [add_kwarg(index, site.node, site.scope, "k", "1")])
    assert fixed.endswith("    return f(y, k=1)\n")
    ast.parse(fixed)
