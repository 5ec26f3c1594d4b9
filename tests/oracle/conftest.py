"""Running programs under real JAX for the oracle tests.

The interpreter is ``$PALLAS_ORACLE_PY`` or ``.oracle-env/bin/python`` (made by
``scripts/oracle-env``: Python 3.12, jax 0.12.0.1). Each program runs in its own
subprocess, in a fresh temporary directory, on the CPU backend, under a timeout.

One session-scoped :class:`Oracle` runs every program the selected tests need,
two at a time, as soon as the first oracle test starts: each parametrised test
case exposes ``oracle_programs()`` and the fixture submits all of them up front;
the tests then look their results up (waiting only for their own).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "data" / "corpus"
ENV_PYTHON = ROOT / ".oracle-env" / "bin" / "python"

TIMEOUT_S = float(os.environ.get("PALLAS_ORACLE_TIMEOUT", "180"))
JOBS = max(1, int(os.environ.get("PALLAS_ORACLE_JOBS", "2")))
MARK = "@@pallas-oracle-result@@"
HOW_TO_SET_UP = (
    "run `scripts/oracle-env` (creates .oracle-env/ with Python 3.12 and jax 0.12.0.1), "
    "or set PALLAS_ORACLE_PY to a Python that has jax 0.12.0.1"
)

# Runs one program file as __main__ and prints the outcome as one JSON line after MARK:
# clean, or the exception's class, its whole message, and the lines of the program that
# appear in its traceback (following __cause__/__context__, where JAX keeps the stack from
# before its transformations).
WRAPPER = r"""
import json, os, runpy, sys, traceback
path, mark = os.path.abspath(sys.argv[1]), sys.argv[2]
res = {"outcome": "clean", "error_class": None, "message": None, "traceback_lines": []}
try:
    sys.argv = [path]
    runpy.run_path(path, run_name="__main__")
except SystemExit as e:
    if e.code not in (None, 0):
        res.update(outcome="raises", error_class="SystemExit", message=str(e.code))
except BaseException as e:
    lines, seen, todo = set(), set(), [e]
    while todo:
        ex = todo.pop()
        if ex is None or id(ex) in seen:
            continue
        seen.add(id(ex))
        for fs in traceback.extract_tb(ex.__traceback__):
            if os.path.abspath(fs.filename) == path:
                lines.add(fs.lineno)
        todo.extend([ex.__cause__, ex.__context__])
    res.update(outcome="raises", error_class=type(e).__name__, message=str(e)[:20000],
               traceback_lines=sorted(lines))
sys.stdout.flush()
sys.stderr.flush()
print(mark + json.dumps(res), flush=True)
"""


@dataclass(frozen=True)
class Program:
    """A program to run: the file name it is run as, and its text."""

    name: str
    text: str
    # The jax release it runs under (an example's ``# jax:`` header, run in ``.oracle-env-X``);
    # None: the pinned one.
    jax: str | None = None

    @property
    def key(self) -> str:
        return f"{self.name}:{self.jax or ''}:{hashlib.sha1(self.text.encode()).hexdigest()[:12]}"


@dataclass
class Result:
    outcome: str  # "clean", "raises", "timeout" or "crashed"
    error_class: str | None = None
    message: str | None = None  # the whole str(exception)
    traceback_lines: list[int] = field(default_factory=list)
    output: str = ""  # the tail of stdout and stderr, for failure messages
    seconds: float = 0.0

    @property
    def first_line(self) -> str | None:
        if self.message is None:
            return None
        return self.message.splitlines()[0] if self.message else ""

    def describe(self) -> str:
        if self.outcome == "clean":
            head = "ran clean"
        elif self.outcome == "raises":
            head = f"raised {self.error_class}: {self.message}"
        else:
            head = f"{self.outcome}: {self.message}"
        tail = self.output.strip()
        return head + (f"\n--- output (tail) ---\n{tail}" if tail and self.outcome != "clean" else "")


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")}
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("XLA_FLAGS", "")
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    return env


def run_program(python: str, program: Program, timeout: float = TIMEOUT_S) -> Result:
    """Run one program under JAX on the CPU, in a temporary directory of its own."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pallas-oracle-") as tmp:
        path = Path(tmp) / program.name
        path.write_text(program.text)
        try:
            proc = subprocess.run([python, "-c", WRAPPER, str(path), MARK], cwd=tmp, env=_child_env(),
                                  capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
        except OSError as e:
            return Result("crashed", message=f"cannot start {python}: {e}", seconds=time.monotonic() - start)
        except subprocess.TimeoutExpired as e:
            out = e.stdout or b""  # bytes even with text=True
            out = out.decode(errors="replace") if isinstance(out, bytes) else out
            return Result("timeout", message=f"no result within {timeout:.0f}s", output=out[-2000:],
                          seconds=time.monotonic() - start)
    seconds = time.monotonic() - start
    output = (proc.stdout + "\n" + proc.stderr)[-4000:]
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(MARK):
            d = json.loads(line[len(MARK):])
            return Result(d["outcome"], d["error_class"], d["message"], d["traceback_lines"],
                          output=output, seconds=seconds)
    return Result("crashed", message=f"exit status {proc.returncode} and no result line", output=output,
                  seconds=seconds)


def release_python(release: str) -> str | None:
    """The interpreter of ``.oracle-env-X`` (``scripts/oracle-env --jax X``), where it is built."""
    python = ROOT / f".oracle-env-{release}" / "bin" / "python"
    return str(python) if os.access(python, os.X_OK) else None


def release_python_or_skip(release: str) -> str:
    """``.oracle-env-X``'s interpreter; a test that needs it skips without it, or fails where
    scripts/test built every release's environment (PALLAS_REQUIRE_RELEASE_ENVS=1)."""
    python = release_python(release)
    if python is None:
        why = f".oracle-env-{release} is missing: run `scripts/oracle-env --jax {release}`"
        if os.environ.get("PALLAS_REQUIRE_RELEASE_ENVS") == "1":
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    return python


class Oracle:
    """Runs programs on a small thread pool; each distinct program runs once a session. A
    program for another release runs in that release's environment."""

    def __init__(self, python: str, jobs: int = JOBS, timeout: float = TIMEOUT_S) -> None:
        self.python = python
        self.timeout = timeout
        self.pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="oracle")
        self.futures: dict[str, Future[Result]] = {}
        self.lock = threading.Lock()
        self.jax_version = ""

    def submit(self, program: Program) -> Future[Result]:
        with self.lock:
            fut = self.futures.get(program.key)
            if fut is None:
                python = self.python if program.jax is None else release_python(program.jax)
                if python is None:
                    fut = Future()
                    fut.set_result(Result("crashed", message=(
                        f"no environment for jax {program.jax} (.oracle-env-{program.jax}/bin/python is "
                        f"missing): run `scripts/oracle-env --jax {program.jax}` (scripts/test does)")))
                else:
                    fut = self.pool.submit(run_program, python, program, self.timeout)
                self.futures[program.key] = fut
            return fut

    def result(self, program: Program) -> Result:
        return self.submit(program).result()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def oracle_python() -> tuple[str | None, str]:
    """(the interpreter, why none) from $PALLAS_ORACLE_PY or .oracle-env."""
    explicit = os.environ.get("PALLAS_ORACLE_PY")
    if explicit:
        found = os.path.abspath(explicit) if os.sep in explicit else shutil.which(explicit)
        if found and os.path.isfile(found) and os.access(found, os.X_OK):
            return found, ""
        return None, f"PALLAS_ORACLE_PY={explicit} is not an executable file"
    if os.access(ENV_PYTHON, os.X_OK):
        return str(ENV_PYTHON), ""
    return None, f"no oracle environment (.oracle-env/bin/python is missing): {HOW_TO_SET_UP}"


@pytest.fixture(scope="session")
def oracle(request: pytest.FixtureRequest):
    python, why = oracle_python()
    if python is None:
        if os.environ.get("PALLAS_ORACLE_PY"):
            pytest.fail(why, pytrace=False)
        pytest.skip(why)
    probe = subprocess.run([python, "-c", "import jax, jaxlib; print(jax.__version__, jaxlib.__version__)"],
                           env=_child_env(), capture_output=True, text=True, timeout=120)
    if probe.returncode != 0:
        pytest.fail(f"{python} cannot import jax ({probe.stderr.strip()[-500:]}); {HOW_TO_SET_UP}",
                    pytrace=False)
    oracle = Oracle(python)
    oracle.jax_version = probe.stdout.split()[0]
    # Start every program the selected tests will need, in the order the tests run.
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if callspec is None or item.get_closest_marker("oracle") is None:
            continue
        for value in callspec.params.values():
            programs = getattr(value, "oracle_programs", None)
            if programs is None:
                continue
            try:
                todo = programs()
            except Exception:  # noqa: BLE001 -- the test itself will report it
                continue
            for program in todo:
                oracle.submit(program)
    yield oracle
    oracle.close()
