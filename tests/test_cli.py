import json
import subprocess

from tests.conftest import CORPUS, ROOT, pallas_cli

CASE = str(CORPUS / "get_global_interpret_true_basic.py")
CLEAN = str(CORPUS / "get_global_helper_never_called_clean.py")


def run(*args, input=None, cwd=None):
    return subprocess.run(pallas_cli() + list(args), capture_output=True, text=True, input=input, cwd=cwd,
                          timeout=120)


def test_exit_codes():
    assert run("check", CLEAN).returncode == 0
    assert run("check", CASE).returncode == 1
    assert run("check", "/no/such/path").returncode == 2
    assert run("check", "--output-format", "yaml", CASE).returncode == 2


def test_json_keys_and_positions():
    out = json.loads(run("check", "--output-format", "json", CASE).stdout)
    assert len(out) == 1
    f = out[0]
    assert set(f) == {"path", "line", "column", "end_line", "end_column", "code", "record", "severity", "message",
                      "related"}
    assert (f["line"], f["column"], f["code"], f["severity"]) == (9, 11, "PAL001", "error")
    assert f["record"] == "get-global-discharge-is-not-supported-in-interpret"
    assert {"path", "line", "message"} == set(f["related"][0])
    assert 19 in {r["line"] for r in f["related"]}


def test_sarif_and_github_formats():
    sarif = json.loads(run("check", "--output-format", "sarif", CASE).stdout)
    res = sarif["runs"][0]["results"]
    assert sarif["version"] == "2.1.0" and res[0]["ruleId"] == "PAL001"
    assert res[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 9
    gh = run("check", "--output-format", "github", CASE).stdout
    assert gh.startswith("::error file=") and ",line=9," in gh and "title=PAL001" in gh


def test_syntax_error_file_reported_and_run_goes_on(tmp_path):
    (tmp_path / "bad.py").write_text("from jax.experimental import pallas as pl\ndef f(:\n")
    (tmp_path / "good.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.py").write_text("from jax.experimental import pallas as pl\ndef f(:\n")
    # A module that does not concern Pallas is not analysed, its syntax included (other linters'
    # job): with or without following imports.
    (tmp_path / "plain.py").write_text("def f(:\n")
    for extra in ([], ["--single-file"]):
        out = json.loads(run("check", "--output-format", "json", *extra, str(tmp_path)).stdout)
        assert sorted((f["path"].rsplit("/", 1)[-1], f["code"]) for f in out) == [("bad.py", "PAL900"),
                                                                               ("good.py", "PAL001")]


def test_select_ignore_and_pyproject_config(tmp_path):
    (tmp_path / "k.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    assert run("check", "--ignore", "PAL001", str(tmp_path)).returncode == 0
    assert run("check", "--select", "PAL003", str(tmp_path)).returncode == 0
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = ["get-global-interpret"]\n')
    assert run("check", str(tmp_path)).returncode == 0
    assert run("check", "--no-config", str(tmp_path)).returncode == 1
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nignore = 3\nbogus = 1\n')
    p = run("check", str(tmp_path))
    assert p.returncode == 1 and "`ignore` must be a list of strings" in p.stderr and "unknown setting" in p.stderr


def test_explain_message_traceback_and_alternative():
    p = run("explain", "NotImplementedError: Dynamic grid bounds not (yet) supported in GPU interpret mode.")
    assert p.returncode == 0 and "static" in p.stdout and "interpret_pallas_call.py" in p.stdout
    tb = ("Traceback (most recent call last):\n  File \"x.py\", line 3\n"
          "TypeError: No ir_type_handler for aval type: <class 'jax._src.state.types.AbstractRef'>\n")
    p = run("explain", "-", input=tb)
    assert p.returncode == 0 and "get_global discharge is not supported" in p.stdout and "PAL001" in p.stdout
    assert run("explain", "something unrelated").returncode == 1


def test_explain_with_user_records(tmp_path):
    rec = {"id": "u1", "slug": "my-error", "errorMessage": "boom", "messagePattern": "boom", "errorClass": "E"}
    (tmp_path / "r.json").write_text(json.dumps(rec))
    (tmp_path / "bad.json").write_text("{")
    p = run("explain", "--records", str(tmp_path), "E: boom")
    assert p.returncode == 0 and "my-error" in p.stdout
    assert "bad.json" in p.stderr


def test_rules_lists_codes_records_and_versions():
    rows = json.loads(run("rules", "--format", "json").stdout)
    # The Python rules first, then the kinds the shipped records declare as data.
    from pallas_lsp.rules import RULE_CLASSES

    n = len(RULE_CLASSES)
    assert [r["code"] for r in rows][:n] == [cls.code for cls in RULE_CLASSES]
    assert [r["code"] for r in rows][:4] == ["PAL001", "PAL002", "PAL003", "PAL004"]
    python_codes = [r["code"] for r in rows][:n]
    assert python_codes == sorted(python_codes)
    assert {r["kind"] for r in rows[:n]} == {"python"} and {r["kind"] for r in rows[n:]} == {"data"}
    assert len({r["code"] for r in rows}) == len(rows)
    assert all(r["record_loaded"] and r["verified_on_jax"] for r in rows)
    assert "PAL004" in run("rules").stdout


def test_module_entry_point():
    import sys

    p = subprocess.run([sys.executable, "-m", "pallas_lsp", "check", CLEAN], capture_output=True, text=True,
                       cwd=ROOT)
    assert p.returncode == 0


def test_unknown_rule_in_select_or_ignore_is_a_usage_error():
    p = run("check", "--select", "PAL001,PAL999", CASE)
    assert p.returncode == 2 and "--select: unknown rule PAL999" in p.stderr and p.stdout == ""
    p = run("check", "--ignore", "no-such-rule", CASE)
    assert p.returncode == 2 and "--ignore: unknown rule no-such-rule" in p.stderr
    # Codes, names and code prefixes are rules.
    assert run("check", "--select", "PAL00", "--ignore", "get-global-non-semaphore", CASE).returncode == 1


def test_unknown_rule_in_pyproject_select_keeps_the_rules_on(tmp_path):
    (tmp_path / "k.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nselect = ["NOPE999"]\n')
    p = run("check", str(tmp_path))
    assert p.returncode == 1 and "PAL001" in p.stdout
    where = tmp_path / "pyproject.toml"
    assert f"{where}: `select`: unknown rule `NOPE999`" in p.stderr
    assert "`select` names no known rule; using the default (all rules)" in p.stderr


def _outside_records(tmp_path):
    """A project and, outside it, a folder with a file that is not JSON: read, it would be
    reported as a bad record (telling the workspace that the file exists)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text("root:x:0:0\n")
    ws = tmp_path / "ws"
    (ws / "recs").mkdir(parents=True)
    (ws / "k.py").write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    (ws / "link.json").symlink_to(outside / "secret.json")
    (ws / "recs" / "evil.json").symlink_to(outside / "secret.json")
    for i in range(8):  # enough files for `-j 2` to start workers
        (ws / f"m{i}.py").write_text("x = 1\n")
    return ws, outside


def test_records_outside_the_project_are_refused_unread(tmp_path):
    ws, outside = _outside_records(tmp_path)
    depth = "../" * len(ws.resolve().parts)
    entries = [str(outside / "secret.json"), str(outside / "missing.json"), str(outside), "/etc",
               f"{depth}{str(outside / 'secret.json').lstrip('/')}", "../outside/missing.json", "link.json", "recs"]
    (ws / "pyproject.toml").write_text(f"[tool.pallas-lsp]\nrecords = {entries!r}\n".replace("'", '"'))
    for jobs in ("1", "2"):
        p = run("check", "-j", jobs, str(ws))
        assert p.returncode == 1 and "PAL001" in p.stdout
        for e in entries[:-1] + ["recs/evil.json"]:
            assert f"records path outside the project: {e} (refused)" in p.stderr
        # Nothing was read: no record problem, and the same words for a file that exists and
        # one that does not.
        assert "bad record" not in p.stderr and "not valid JSON" not in p.stderr and "not found" not in p.stderr


def test_a_projects_records_declare_rules_in_workers_too(tmp_path):
    """A records file named by pyproject.toml that declares a rule: its findings in every file,
    whether the files are checked in this process or by workers (the workers once ran only the
    shipped rules, and dropped half the findings)."""
    kind = ROOT / "tests" / "data" / "records" / "user_kind"
    (tmp_path / "rec.json").write_text((kind / "run_scoped_collective_axes.json").read_text())
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["rec.json"]\n')
    for i in range(12):  # more than PARALLEL_FROM modules to analyse: workers start
        (tmp_path / f"k{i}.py").write_text((kind / "reduce_rows.py").read_text())
    got = {}
    for jobs in ("1", "2"):
        p = run("check", "--no-cache", "--output-format", "json", "-j", jobs, str(tmp_path))
        got[jobs] = sorted((f["path"], f["line"], f["code"]) for f in json.loads(p.stdout))
    assert len({c for _, _, c in got["1"]}) == 2 and len(got["1"]) == 24  # a shipped rule's and the record's
    assert got["2"] == got["1"]


def test_records_given_on_the_command_line_may_be_anywhere(tmp_path):
    ws, outside = _outside_records(tmp_path)
    p = run("check", "--records", str(outside / "secret.json"), str(ws))
    assert p.returncode == 1 and f"bad record: {outside / 'secret.json'}" in p.stderr  # read: the user chose it


def test_text_output_cannot_inject_ci_commands(tmp_path):
    """A file named with a newline must not start a `::error` workflow command line of its own
    (GitHub Actions reads them from stdout and stderr)."""
    evil = tmp_path / "a\n::error file=x::pwned\x1b[2K.py"
    evil.write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nrecords = ["\\n::error file=y::pwned"]\n')
    p = run("check", str(tmp_path))
    assert p.returncode == 1
    lines = (p.stdout + p.stderr).splitlines()
    assert not [ln for ln in lines if ln.lstrip().startswith("::") or "\x1b" in ln]
    assert "a\\n::error file=x::pwned\\x1b[2K.py:9:11: PAL001" in p.stdout  # escaped, still readable
    assert f"records file not found: {tmp_path}/\\n::error file=y::pwned\n" in p.stderr  # inside: may say so
    # The github format escapes in its own way; json is JSON.
    assert not [ln for ln in run("check", "--output-format", "github", str(tmp_path)).stdout.splitlines()
                if not ln.startswith("::error file=")]
    assert json.loads(run("check", "--output-format", "json", str(tmp_path)).stdout)[0]["path"] == str(evil)


def test_undecodable_file_name_does_not_stop_the_output(tmp_path):
    """A name with bytes that are not UTF-8 (a lone surrogate in Python) is printed escaped, not
    an encoding error for the whole run, with a strict stdout (a UTF-8 locale)."""
    import os

    with open(os.path.join(os.fsencode(tmp_path), b"k\xff.py"), "w") as f:
        f.write((CORPUS / "get_global_interpret_true_basic.py").read_text())
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict", "PYTHONUTF8": "0", "LC_ALL": "C.UTF-8"}
    for fmt in ("text", "github", "json", "sarif"):
        p = subprocess.run(pallas_cli() + ["check", "--output-format", fmt, str(tmp_path)], capture_output=True,
                           text=True, timeout=120, env=env)
        assert p.returncode == 1, (fmt, p.stderr)
        assert "k\\udcff.py" in p.stdout, fmt


def test_assume_interpret_reports_what_would_break_when_debugging_on_cpu(tmp_path):
    text = (CORPUS / "get_global_interpret_true_basic.py").read_text().replace("        interpret=True,\n", "")
    path = tmp_path / "compiled.py"
    path.write_text(text)
    assert run("check", "--no-config", str(path)).returncode == 0  # compiled: nothing fails here
    proc = run("check", "--no-config", "--assume-interpret", "tpu", "--output-format", "json", str(path))
    assert proc.returncode == 1  # asked for: the what-if counts
    (f,) = json.loads(proc.stdout)
    assert (f["code"], f["assumed"]) == ("PAL001", "tpu")
    assert f["message"].startswith("What if (--assume-interpret tpu): ")
    bad = run("check", "--assume-interpret", "cuda", str(path))
    assert bad.returncode == 2


def test_select_on_the_command_line_wins_over_the_project_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nselect = ["PAL004"]\n')
    path = tmp_path / "k.py"
    path.write_text((CORPUS / "get_global_interpret_true_basic.py").read_text())
    assert run("check", str(path)).returncode == 0  # the file selects PAL004 only
    proc = run("check", "--select", "PAL001", str(path))
    assert proc.returncode == 1 and "PAL001" in proc.stdout


def test_backends_cpu_puts_compiled_launches_on_a_cpu_host(tmp_path):
    # The corpus case runs a compiled pallas_call in a script: it fails on a CPU host only.
    path = tmp_path / "k.py"
    path.write_text((CORPUS / "get_global_interpret_true_basic.py").read_text()
                    .replace("        interpret=True,\n", ""))
    assert run("check", "--no-config", str(path)).returncode == 0  # the code does not say where it runs
    proc = run("check", "--no-config", "--backends", "cpu", "--output-format", "json", str(path))
    assert proc.returncode == 1
    (f,) = json.loads(proc.stdout)
    assert f["code"] == "PAL510" and "the `backends` setting lists cpu" in f["message"]
    # The project file says so too, and the command line wins over it.
    (tmp_path / "pyproject.toml").write_text('[tool.pallas-lsp]\nbackends = ["cpu"]\n')
    assert run("check", str(path)).returncode == 1
    assert run("check", "--backends", "tpu", str(path)).returncode == 0
    bad = run("check", "--backends", "cpu,gpu", str(path))
    assert bad.returncode == 2 and "unknown backend `gpu`" in bad.stderr
