"""scripts/check-wheel's content check: a wheel without the records, the rule examples or the
plugin's entry point is refused. (scripts/test runs the whole script: build, install into a
fresh environment, run the installed CLI and server.)"""
import importlib.machinery
import importlib.util
import zipfile

from tests.conftest import ROOT


def load_script():
    loader = importlib.machinery.SourceFileLoader("check_wheel", str(ROOT / "scripts" / "check-wheel"))
    spec = importlib.util.spec_from_loader("check_wheel", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def make_wheel(path, names, entry_points):
    with zipfile.ZipFile(path, "w") as zf:
        for n in names:
            zf.writestr(n, "")
        zf.writestr("pallas_lsp-0.1.0.dist-info/METADATA", "")
        zf.writestr("pallas_lsp-0.1.0.dist-info/entry_points.txt", entry_points)
    return path


ENTRY_POINTS = ("[console_scripts]\npallas-lsp = pallas_lsp.cli:main\n\n"
                "[pytest11]\npallas_lsp = pallas_lsp.pytest_plugin\n")


def test_a_complete_wheel_passes(tmp_path):
    script = load_script()
    wheel = make_wheel(tmp_path / "ok.whl", sorted(script.package_files()), ENTRY_POINTS)
    assert script.check_contents(wheel) == []


def test_missing_data_files_and_entry_points_are_problems(tmp_path):
    script = load_script()
    files = script.package_files()
    assert any(f.startswith("pallas_lsp/kinds/") and f.endswith("/record.json") for f in files)
    assert any("/examples/PAL" in f for f in files)
    only_code = sorted(f for f in files
                       if "/data/" not in f and "/examples/" not in f and not f.endswith("/record.json"))
    wheel = make_wheel(tmp_path / "bad.whl", only_code, "[console_scripts]\npallas-lsp = pallas_lsp.cli:main\n")
    problems = script.check_contents(wheel)
    assert any("package files are not in the wheel" in p for p in problems)
    assert "no records in the wheel (pallas_lsp/kinds/*/record.json...)" in problems
    assert "no rule examples in the wheel (pallas_lsp/kinds/*/examples/PAL...)" in problems
    assert "entry point not declared: pallas_lsp = pallas_lsp.pytest_plugin" in problems
