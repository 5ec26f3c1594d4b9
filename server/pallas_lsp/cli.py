"""Command line: ``pallas-lsp [serve] | check | explain | rules``.

A thin adapter over the analysis core; exit codes for ``check``: 0 clean (or ``--exit-zero``),
1 findings, 2 usage or internal error. ``check`` reads notebooks (``.ipynb``) too.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from . import __version__

if TYPE_CHECKING:  # pragma: no cover
    from .records import RecordStore


def _split(values: list[str] | None) -> tuple[str, ...] | None:
    if not values:
        return None
    out: list[str] = []
    for v in values:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return tuple(out)


def _warn(message: str, out=None) -> None:
    """One problem line on stderr. Problems quote paths and values from the checked tree
    (a pyproject.toml, a records file): escaped like the text output, so none can start a line
    of its own in a CI log."""
    from .output import printable

    print(f"pallas-lsp: {printable(message)}", file=out or sys.stderr)


def _unknown_rule_flag(flag: str, values: Sequence[str], rules, *, prefixes: bool) -> bool:
    """Reports the entries of ``--select``/``--ignore`` that name no rule of ``rules`` (the
    run's: a typo would otherwise silently check nothing, or skip nothing). True when there
    was one."""
    from .config import known_rules_hint, unknown_rules

    bad = unknown_rules(values, rules, prefixes=prefixes)
    if bad:
        _warn(f"{flag}: unknown rule {', '.join(bad)} ({known_rules_hint(rules)})")
    return bool(bad)


def _store(extra: Sequence[str], problems_out) -> "RecordStore":
    """The shipped records and the user's own (``--records``: any path, the user chose it)."""
    from .records import default_store

    store = default_store()
    for p in extra:
        if not os.path.exists(p):
            _warn(f"records path not found: {p}", problems_out)
            continue
        for prob in store.add_path(p):
            _warn(f"bad record: {prob}", problems_out)
    return store


PARALLEL_FROM = 8  # `check -j N` analyses in workers only more modules than this (each worker starts for ~0.4 s)
MAX_DEFAULT_JOBS = 4  # (each worker holds its own program: a few hundred MB on a large repository)


def default_jobs() -> int:
    """Workers when ``-j`` is not given: the cores this process may use, at most
    :data:`MAX_DEFAULT_JOBS` (ruff too uses every core by default). Few modules to analyse
    start none (:data:`PARALLEL_FROM`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # (not on every platform)
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_DEFAULT_JOBS))


def _backends_option(args: argparse.Namespace) -> tuple[bool, tuple[str, ...] | None]:
    """(whether ``--backends`` and ``--tpu-generation`` are well formed, said on stderr where
    not; the backends listed, None when the option is not given)."""
    from .config import BACKENDS

    backends = None
    if args.backends is not None:
        backends = _split([args.backends]) or ()
        wrong = [b for b in backends if b not in BACKENDS]
        if wrong:
            _warn(f"--backends: unknown backend {', '.join(f'`{b}`' for b in wrong)} (known: {', '.join(BACKENDS)})")
            return False, None
    if args.tpu_generation is not None and _tpu_generation_problem(args.tpu_generation):
        return False, None
    return True, backends


def cmd_launches(args: argparse.Namespace) -> int:
    """``pallas-lsp launches``: each launch of the files with its context, backend, grid and
    memory budget (analysis/launch_report.py); JSON has the fields the editor's hint shows."""
    from .analysis.launch_report import budget_hint, launch_reports
    from .analysis.program import workspace_root
    from .checker import Checker, discover
    from .config import Config
    from .files import FileReadError, SourceDecodeError
    from .notebooks import is_notebook
    from .rules import default_engine

    for raw in args.paths:
        if not os.path.exists(raw):
            _warn(f"no such file or directory: {raw}")
            return 2
    ok, backends = _backends_option(args)
    if not ok:
        return 2
    base = Config(backends=backends, jax_version=args.jax_version,
                  jax_version_from="--jax-version" if args.jax_version else None,
                  tpu_generation=args.tpu_generation,
                  tpu_generation_from="--tpu-generation" if args.tpu_generation else None)
    checker = Checker(default_engine(), base, use_file_config=not args.no_config)
    checker.root = workspace_root(args.paths)
    checker.workspace(checker.root)
    rows: list[dict] = []
    lines: list[str] = []
    for path in discover(args.paths):
        if is_notebook(path):
            continue  # (a notebook's cells are checked by `check`; their launches are not listed)
        cfg = checker.config_for(path)
        try:
            result = checker.analysis_of(path, cfg)
        except (FileReadError, SourceDecodeError) as exc:
            _warn(f"{path}: {exc}")
            continue
        if result is None:
            continue
        for report in launch_reports(result, cfg.tpu_generation):
            rows.append(report.as_json(str(path)))
            hint = budget_hint(report)
            if hint is None and not args.all:
                continue
            backend = "/".join(report.backends) or "mode unknown"
            lines.append(f"{path}:{report.line}: {report.launch.kernel_name} [{backend}] "
                         f"{hint or 'no memory estimate'}")
    if args.output_format == "json":
        print(json.dumps(rows, indent=2))
    else:
        print("\n".join(lines) if lines else "No launch with a memory estimate found (--all lists every launch).")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from .checker import Checker, discover
    from .config import Config
    from .notebooks import is_notebook
    from .rules import default_engine
    from .rules.data import detection_key

    for raw in args.paths:
        if not os.path.exists(raw):
            _warn(f"no such file or directory: {raw}")
            return 2
    select, ignore = _split(args.select), _split(args.ignore) or ()
    store = _store(args.records or [], sys.stderr)  # (its records may declare rules --select names)
    ok, backends = _backends_option(args)
    if not ok:
        return 2
    if args.assume_interpret and args.assume_compiled:
        _warn("--assume-interpret and --assume-compiled exclude each other: give one")
        return 2
    base = Config(select=select, ignore=ignore,
                  records=tuple(str(Path(r).resolve()) for r in args.records or []),
                  assume_interpret=args.assume_interpret, assume_compiled=args.assume_compiled, backends=backends,
                  jax_version=args.jax_version, jax_version_from="--jax-version" if args.jax_version else None,
                  tpu_generation=args.tpu_generation,
                  tpu_generation_from="--tpu-generation" if args.tpu_generation else None)
    from .chips import ChipClaims, GenerationChoice
    from .runtime import tune_gc

    tune_gc(batch=True)
    checker = Checker(default_engine(records=store.records), base, use_file_config=not args.no_config,
                      # (every module analysed, as before modules were pruned: for comparisons)
                      prune=os.environ.get("PALLAS_LSP_FULL_ANALYSIS", "") in ("", "0"))
    checker.chip_claims = ChipClaims.of(store.records)
    rules_from = detection_key(store.records)
    from .analysis.program import workspace_root

    checker.root = workspace_root(args.paths)  # (whose .venv says which jax, before the program is read)
    files = list(discover(args.paths))
    fixing = bool(args.fix or args.diff)
    unsafe = bool(args.unsafe_fixes)
    fixed: dict[str, object] = {}  # path -> checker.FixResult
    seen_cfg_problems: set[str] = set()
    loaded_records: set[str] = set()  # each records file once, however many files share it
    results = []
    project_records: list[str] = []  # records files the checked files' pyproject.toml name, loaded
    releases: dict = {}  # path -> releases.ReleaseChoice: the jax each file is checked against
    generations: dict = {}  # path -> chips.GenerationChoice: the TPU chip each file targets

    def config_of(path: Path):
        """The file's settings; the records files they name loaded once each (a project's
        records may declare rules: the engine is rebuilt), then their rules checked against
        that rule set and their problems reported once."""
        nonlocal rules_from
        own = checker.file_config(path)
        # Only paths confine_records kept: inside the folder of their pyproject.toml.
        for rp in own.records:
            if rp in base.records or rp in loaded_records:
                continue
            loaded_records.add(rp)
            if not os.path.exists(rp):
                _warn(f"records file not found: {rp}")
                continue
            project_records.append(rp)
            for prob in store.add_path(rp):
                _warn(f"bad record: {prob}")
            if detection_key(store.records) != rules_from:  # the project's records declare rules
                rules_from = detection_key(store.records)
                checker.engine = default_engine(records=store.records)
            checker.chip_claims = ChipClaims.of(store.records)
            checker.cache_settings = _cache_settings(store)
        cfg = checker.config_for(path, own)
        choice = checker.release_for(cfg)
        releases[str(path)] = choice
        generations[str(path)] = GenerationChoice(cfg.tpu_generation, cfg.tpu_generation_from or "")
        for prob in cfg.problems + ((choice.problem,) if choice.problem else ()):
            if prob not in seen_cfg_problems:
                seen_cfg_problems.add(prob)
                _warn(f"config: {prob}")
        return cfg

    for path in files:  # (first: the records they load decide which rules --select may name)
        config_of(path)
    unknown = [_unknown_rule_flag("--select", select or (), checker.engine.rules, prefixes=True),
               _unknown_rule_flag("--ignore", ignore, checker.engine.rules, prefixes=False)]
    if any(unknown):
        return 2
    cache = None
    if not args.single_file:
        from .analysis.program import workspace_root

        checker.workspace(workspace_root(args.paths))  # (reads through the overlay of fixed texts)
        no_cache = args.no_cache or os.environ.get("PALLAS_LSP_NO_CACHE", "") not in ("", "0")
        if not (no_cache or fixing or args.statistics) and checker.program.root is not None:
            cache = _open_cache(args, checker, store)
    jobs = args.jobs if args.jobs is not None else default_jobs()
    if jobs > 1 and len(files) > PARALLEL_FROM:
        from dataclasses import replace

        from .parallel import check_parallel

        # The workers load every records file the parent did (they read no pyproject records).
        worker_base = replace(base, records=(*base.records, *project_records))
        root = str(checker.program.root) if checker.program is not None and checker.program.root else None
        # The parent decides what concerns Pallas (and answers from the cache); the workers get
        # only the rest, with every module's scanned facts.
        done = {}
        for p in files:
            got_here = checker.findings_without_analysis(p)
            if got_here is not None:
                done[str(p)] = got_here
        todo = [p for p in files if str(p) not in done]
        facts = checker.program.known_facts() if checker.program is not None else None
        got = {}
        if len(todo) <= PARALLEL_FROM:  # (starting workers would cost more than they save)
            got = {str(p): checker.check_file(Path(p)) for p in todo}
            todo = []
        for p, fs, recorded in check_parallel(todo, worker_base, not args.no_config, jobs, root,
                                              with_fixes=fixing or args.statistics,  # (--statistics: fixable)
                                              facts=facts, record=cache is not None, prune=checker.prune):
            got[p] = fs
            if recorded is not None and cache is not None:
                cache.keep_values(os.path.abspath(p), checker.settings_key(checker.config_for(Path(p))),
                                  recorded, fs)
        results = [(str(p), done[str(p)] if str(p) in done else got[str(p)]) for p in files]
        if fixing:  # the workers built the first pass's fixes; later passes run here
            for i, (p, fs) in enumerate(results):
                if any(f.fixes for f in fs) and not is_notebook(p):
                    fixed[p] = res = checker.fix_file(Path(p), unsafe=unsafe, findings=fs)
                    results[i] = (p, res.findings)
    else:
        for path in files:
            if fixing and not is_notebook(path):  # (notebooks are checked, never rewritten)
                res = checker.fix_file(path, unsafe=unsafe)
                fixed[str(path)] = res
                results.append((str(path), res.findings))
            else:
                results.append((str(path), checker.check_file(path)))
    if cache is not None:
        cache.save()
    urls = {r.slug: r.github_url for r in store.records}
    if fixing:
        rc = _report_fixes(args, results, fixed, list(checker.engine.rules), urls, releases, generations)
    else:
        _print_findings(args, results, list(checker.engine.rules), urls, unsafe=unsafe, releases=releases,
                        generations=generations)
        rc = 1 if any(fs for _, fs in results) else 0
    return 0 if args.exit_zero else rc


def _open_cache(args: argparse.Namespace, checker, store):
    """The on-disk cache for this run's workspace (cache.py), or None when there is none."""
    from .cache import DEFAULT_FOLDER, CheckCache
    from .config import cache_folder, find_config

    root = checker.program.root
    if args.cache_dir or os.environ.get("PALLAS_LSP_CACHE_DIR"):
        folder = Path(args.cache_dir or os.environ["PALLAS_LSP_CACHE_DIR"])
    else:
        cfg = find_config(root) if not args.no_config else None
        folder, problem = cache_folder(cfg, root / DEFAULT_FOLDER) if cfg is not None \
            else (root / DEFAULT_FOLDER, None)
        if problem:
            _warn(f"config: {problem}")
    cache = CheckCache.open(folder, root)
    if cache is not None:
        checker.cache = cache
        checker.cache_settings = _cache_settings(store)
        checker.program.facts_store = cache
    return cache


def _cache_settings(store) -> str:
    """What every cached result depends on besides the files: the records (messages, rules)."""
    from .cache import content_hash

    return content_hash(repr([(r.slug, r.source, repr(r)) for r in store.records]))


def _report_fixes(args: argparse.Namespace, results: list, fixed: dict, rules: list, urls: dict,
                  releases: dict | None = None, generations: dict | None = None) -> int:
    """``--fix``: write the fixed files, show what is left and ``Fixed N problems (M remaining)``;
    ``--diff``: print the changes as a unified diff instead (exit 1 when there are any)."""
    from .checker import unified_diff, write_fixed

    applied = sum(r.applied for r in fixed.values())
    remaining = sum(len(fs) for _, fs in results)
    changed = [r for r in fixed.values() if r.changed]
    if args.diff:
        out = "".join(unified_diff(r) for r in changed)
        if out:
            sys.stdout.write(out)
        print(f"Would fix {applied} problem{'s' if applied != 1 else ''} ({remaining} remaining)"
              if applied else "No fixes available", file=sys.stderr)
        return 1 if changed else 0
    for r in changed:
        why = write_fixed(r)
        if why is not None:  # (the findings shown are those of the fixed text: say it is not on disk)
            _warn(f"{r.path}: not written: {why}")
            applied -= r.applied
    _print_findings(args, results, rules, urls, unsafe=bool(args.unsafe_fixes), releases=releases,
                    generations=generations)
    print(f"Fixed {applied} problem{'s' if applied != 1 else ''} ({remaining} remaining)", file=sys.stderr)
    return 1 if remaining else 0


def _print_findings(args: argparse.Namespace, results: list, rules=None, urls=None, *, unsafe: bool = False,
                    releases: dict | None = None, generations: dict | None = None) -> None:
    from .output import statistics, statistics_text, to_github, to_json, to_sarif, to_text

    fmt = args.output_format
    if getattr(args, "statistics", False):
        from .analysis.fixes import fix_candidates

        rows = statistics(results, lambda f: any(fx.edits for fx in fix_candidates(f, unsafe=unsafe)))
        print(json.dumps(rows, indent=2) if fmt == "json" else statistics_text(rows))
        return
    if fmt == "json":
        out = to_json(results, releases, generations)
    elif fmt == "sarif":
        out = to_sarif(results, list(rules or ()), urls or {})
    elif fmt == "github":
        out = to_github(results)
    else:
        out = to_text(results, releases=releases)
    if out:
        print(out)


def cmd_explain(args: argparse.Namespace) -> int:
    from .explain import explain_text, explanation_markdown
    from .rules import default_rule_set

    text = sys.stdin.read() if args.text == ["-"] else " ".join(args.text)
    store = _store(args.records or [], sys.stderr)
    expl = explain_text(text, store)
    rules_by_slug: dict[str, list[tuple[str, str]]] = {}
    for rule in default_rule_set(store.records):
        rules_by_slug.setdefault(rule.record, []).append((rule.code, rule.name))
    if args.format == "json":
        print(json.dumps([{"slug": e.record.slug, "id": e.record.id, "matched": e.matched_line, "note": e.note,
                           "record": e.record.raw, "rules": [c for c, _ in rules_by_slug.get(e.record.slug, [])]}
                          for e in expl], indent=2))
    else:
        print(explanation_markdown(expl, rules_by_slug), end="")
    return 0 if expl else 1


def cmd_dev_schema(args: argparse.Namespace) -> int:
    """The detection schema's generated files: the JSON Schema of record files (printed, or
    written to ``--json``) and docs/data-rules.md's reference (``--docs``). ``--check`` writes
    nothing and exits 1 when a file is stale."""
    from pathlib import Path

    from .records.reference import schema_text, with_reference

    targets = []
    if args.json:
        targets.append((Path(args.json), schema_text()))
    if args.docs:
        page = Path(args.docs).read_text(encoding="utf-8")
        targets.append((Path(args.docs), with_reference(page)))
    if not targets:
        print(schema_text(), end="")
        return 0
    stale = [(path, text) for path, text in targets
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    for path, text in stale:
        if args.check:
            print(f"{path} is stale: run `pallas-lsp dev schema --json ... --docs ...`", file=sys.stderr)
        else:
            path.write_text(text, encoding="utf-8")
    return 1 if stale and args.check else 0


def cmd_dev_new_kind(args: argparse.Namespace) -> int:
    from .kinds.scaffold import ScaffoldError, new_kind

    try:
        made = new_kind(args.code, args.slug, python=args.python, family=args.family)
    except ScaffoldError as exc:
        print(f"pallas-lsp dev new-kind: {exc}", file=sys.stderr)
        return 2
    print(f"{made.code} {made.slug}: {made.folder}")
    for path in made.files:
        print(f"  {path.relative_to(made.folder)}")
    print("Replace every TODO(new-kind) (the records loader refuses to ship a record holding one), "
          "then run: pytest tests/rules/test_examples.py -n 0 -k " + made.code)
    return 0


def cmd_rules(args: argparse.Namespace) -> int:
    from .rules import default_rule_set, rule_by_code
    from .rules.examples import verified_on

    if args.format == "markdown":
        from .ruledocs import rules_markdown, rules_summary

        print(rules_summary() if args.summary else rules_markdown(), end="")
        return 0
    store = _store(args.records or [], sys.stderr)
    choice = _rules_release(args)
    generation = _rules_generation(args)
    if generation is None:
        return 2
    rows = []
    for rule in default_rule_set(store.records):
        rec = store.by_slug(rule.record)
        rows.append({"code": rule.code, "name": rule.name, "record": rule.record,
                     "record_loaded": rec is not None, "summary": rule.summary,
                     "kind": "python" if rule_by_code(rule.code) is not None else "data",
                     "verified_on_jax": list(verified_on(rule)),
                     # (the TPU chips that showed a chip-only kind, and the generation claimed for)
                     "chips": [{"generation": c.generation, "releases": list(c.releases)}
                               for c in (rec.chips if rec is not None else ())],
                     "tpu_generation": generation.as_json(),
                     "jax": choice.as_json()})  # (the release whose tables and defaults the rules read)
    if args.format == "json":
        print(json.dumps(rows, indent=2))
        return 0
    print(f"Knowledge for {choice.described()}; {generation.described()}")
    for r in rows:
        print(f"{r['code']}  {r['name']:<28} record: {r['record']}")
        print(f"        {r['summary']}")
        print(f"        verified on jax {', '.join(r['verified_on_jax'])}")
        if r["chips"]:
            print("        seen on " + "; ".join(f"TPU {c['generation']}, jax {', '.join(c['releases'])}"
                                             for c in r["chips"]))
    return 0


def _rules_release(args: argparse.Namespace):
    """The release ``check`` would use here: --jax-version, else the working folder's
    pyproject.toml ``jax-version``, else its .venv, pallas-lsp's own, the newest."""
    from dataclasses import replace

    from .config import find_config
    from .releases import release_for_config

    cfg = find_config(Path.cwd())
    if args.jax_version is not None:
        cfg = replace(cfg, jax_version=args.jax_version, jax_version_from="--jax-version")
    choice = release_for_config(cfg, None, Path.cwd())
    if choice.problem:
        _warn(f"config: {choice.problem}")
    return choice


def _tpu_generation_problem(value: str) -> bool:
    from .chips import generation_problem

    problem = generation_problem(value, "--tpu-generation")
    if problem:
        _warn(problem)
    return problem is not None


def _rules_generation(args: argparse.Namespace):
    """The TPU generation ``check`` would claim for here (chips.GenerationChoice): --tpu-generation,
    else the working folder's pyproject.toml ``tpu-generation``; None after a bad --tpu-generation."""
    from .chips import GenerationChoice
    from .config import find_config

    if args.tpu_generation is not None:
        if _tpu_generation_problem(args.tpu_generation):
            return None
        return GenerationChoice(args.tpu_generation, "--tpu-generation")
    cfg = find_config(Path.cwd())
    return GenerationChoice(cfg.tpu_generation, cfg.tpu_generation_from or "")


def cmd_serve(args: argparse.Namespace) -> int:
    from .lsp.server import serve

    return serve(tcp=args.tcp)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="pallas-lsp", description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--version", action="version", version=f"pallas-lsp {__version__}")
    sub = ap.add_subparsers(dest="command")

    s = sub.add_parser("serve", help="run the language server (the default)")
    s.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    s.add_argument("--stdio", action="store_true", help="use stdio (the default; accepted for editors)")
    s.set_defaults(func=cmd_serve)

    c = sub.add_parser("check", help="check files and folders")
    c.add_argument("paths", nargs="*", default=["."])
    c.add_argument("--output-format", choices=["text", "json", "sarif", "github"], default="text")
    c.add_argument("--records", action="append", metavar="PATH", help="extra records file or folder")
    c.add_argument("--select", action="append", metavar="CODES", help="only these rule codes or names")
    c.add_argument("--ignore", action="append", metavar="CODES", help="skip these rule codes or names")
    c.add_argument("--no-config", action="store_true", help="ignore [tool.pallas-lsp] in pyproject.toml")
    c.add_argument("--jobs", "-j", type=int, default=None,
                   help="worker processes for many files (default: the usable cores, at most "
                   f"{MAX_DEFAULT_JOBS}; 1: none)")
    c.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the cache (.pallas-lsp-cache/ at the workspace root; "
                   "also PALLAS_LSP_NO_CACHE=1)")
    c.add_argument("--cache-dir", metavar="DIR", help="keep the cache in DIR (default: PALLAS_LSP_CACHE_DIR, "
                   "else the `cache-dir` setting, else .pallas-lsp-cache/ at the workspace root)")
    c.add_argument("--single-file", action="store_true",
                   help="analyse each file on its own (do not follow imports across the checked tree)")
    c.add_argument("--fix", action="store_true",
                   help="apply the safe fixes (the program keeps running in the mode it is launched in) "
                        "and write the files; report what is left")
    c.add_argument("--unsafe-fixes", action="store_true",
                   help="with --fix or --diff, also apply the fixes that change what runs (such as running compiled)")
    c.add_argument("--diff", action="store_true",
                   help="print the fixes as a unified diff instead of writing them (exit 1 when there are any)")
    c.add_argument("--statistics", action="store_true",
                   help="print the number of findings per rule code instead of each finding "
                        "([*]: --fix would fix some; json with --output-format json)")
    c.add_argument("--backends", metavar="LIST",
                   help="comma-separated: where compiled launches run when the code does not say (tpu, triton, "
                        "mosaic_gpu; cpu: also on CPU hosts, where Pallas only interprets); wins over the "
                        "`backends` setting")
    c.add_argument("--assume-interpret", choices=["true", "tpu", "gpu"],
                   help="what would break when debugging on a CPU: analyse compiled launches as if launched "
                        "with interpret=True, TPU interpret params or GPU interpret params (such findings say "
                        "so and carry \"assumed\" in JSON)")
    c.add_argument("--assume-compiled", choices=["tpu"],
                   help="will it run on the chip: analyse interpreted launches (interpret=True, TPU interpret "
                        "params) as if compiled for TPU; such findings say so and carry \"assumed\" in JSON")
    c.add_argument("--jax-version", metavar="VERSION",
                   help="the jax release the code runs on (e.g. 0.10.2): whose lowering tables and GPU defaults "
                        "are used; wins over the `jax-version` setting (default: the jax of the workspace's "
                        "environment)")
    c.add_argument("--tpu-generation", metavar="GEN",
                   help="the TPU chip the code targets (v4, v5e, v5p, v6e, v7x): kinds only a chip shows are "
                        "reported for the generations whose chip showed them; wins over the `tpu-generation` "
                        "setting (default: none; such findings say where they were seen)")
    c.add_argument("--exit-zero", action="store_true",
                   help="exit 0 even when there are findings (2 still means a usage or internal error)")
    c.set_defaults(func=cmd_check)

    la = sub.add_parser("launches", help="list every launch: its backend, grid and, compiled for TPU, its memory "
                        "budget (scoped VMEM, SMEM) against the chip's limits")
    la.add_argument("paths", nargs="*", default=["."])
    la.add_argument("--output-format", choices=["text", "json"], default="text")
    la.add_argument("--backends", metavar="LIST", help="as for check: where compiled launches run when the code "
                    "does not say (tpu, triton, mosaic_gpu)")
    la.add_argument("--tpu-generation", metavar="GEN", help="the TPU chip whose limits to hold budgets to "
                    "(default: the `tpu-generation` setting, else v5e, the only one measured)")
    la.add_argument("--jax-version", metavar="VERSION", help="as for check")
    la.add_argument("--no-config", action="store_true", help="ignore [tool.pallas-lsp] in pyproject.toml")
    la.add_argument("--all", action="store_true", help="text output: also launches without a budget")
    la.set_defaults(func=cmd_launches)

    e = sub.add_parser("explain", help="explain a JAX error message or traceback ('-' reads stdin)")
    e.add_argument("text", nargs="+")
    e.add_argument("--records", action="append", metavar="PATH")
    e.add_argument("--format", choices=["markdown", "json"], default="markdown")
    e.set_defaults(func=cmd_explain)

    r = sub.add_parser("rules", help="list the rules")
    r.add_argument("--format", choices=["text", "json", "markdown"], default="text")
    r.add_argument("--summary", action="store_true",
                   help="with --format markdown: only the table of rule families (the README's Rules table)")
    r.add_argument("--records", action="append", metavar="PATH",
                   help="also list the rules these records' detection sections declare")
    r.add_argument("--jax-version", metavar="VERSION",
                   help="the jax release whose knowledge to show (default: as `check` chooses it here)")
    r.add_argument("--tpu-generation", metavar="GEN",
                   help="the TPU chip whose claims to show (default: as `check` chooses it here)")
    r.set_defaults(func=cmd_rules)

    dev = sub.add_parser("dev", help="tools for working on pallas-lsp itself").add_subparsers(dest="dev_command")
    ds = dev.add_parser("schema", help="generate the record JSON Schema and the detection reference")
    ds.add_argument("--json", metavar="PATH", help="write the JSON Schema here "
                    "(server/pallas_lsp/records/record.schema.json); without --json or --docs it is printed")
    ds.add_argument("--docs", metavar="PATH", help="rewrite this page's generated section (docs/data-rules.md)")
    ds.add_argument("--check", action="store_true", help="write nothing; exit 1 when a file is stale")
    ds.set_defaults(func=cmd_dev_schema)
    nk = dev.add_parser("new-kind", help="make a kind folder (record, detection, examples; --python: rule.py)")
    nk.add_argument("code", help="PALnnn in a family's range, or next:<family> for the family's next free code")
    nk.add_argument("--slug", required=True, help="the record's slug (lower-case words joined by -)")
    nk.add_argument("--python", action="store_true", help="a Python rule (rule.py) instead of a detection section")
    nk.add_argument("--family", help="the family the code must be in (server/pallas_lsp/kinds/ranges.py)")
    nk.set_defaults(func=cmd_dev_new_kind)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("--stdio") or argv[0] == "--tcp":
        argv = ["serve", *argv]
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0) if exc.code in (0, None) else 2
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - report, exit 2
        import traceback

        traceback.print_exc()
        print(f"pallas-lsp: internal error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
