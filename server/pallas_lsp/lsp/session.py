"""What the server knows about one client's session: the open documents and notebooks (by unit:
a text document, or a notebook's code cells as one module), their generations and analysed
results, the settings and capabilities, and the caches built from them (records stores, the
analysis engine, the workspace program).

The event loop alone changes it. Background work never reads it: it takes a frozen
:class:`UnitSnapshot` (:meth:`Session.snapshot`), everything a job of one unit may read."""
from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from lsprotocol import types as lsp

from ..config import Config, find_config, with_known_rules
from .documents import CellSlice, Document, Notebook, join_cells
from .units import Caps, OpenTexts, uri_to_path
from .results import Analysed
from .settings import Settings, parse_settings

if TYPE_CHECKING:
    from ..analysis.caches import AnalysisCaches
    from ..analysis.engine import Engine
    from ..records import RecordStore

log = logging.getLogger("pallas_lsp")
LOG_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}


@dataclass(frozen=True)
class UnitSnapshot:
    """One unit's text and all that its analysis reads, taken on the event loop: the only thing
    a worker is handed, so it converts positions against exactly the text it analysed and never
    reads the live maps the loop changes at every keystroke."""

    unit: str
    gen: int
    path: str
    text: str
    slices: list[CellSlice] | None  # notebooks: where each cell is in the joined text
    docs: dict[str, Document]  # frozen copies of the unit's documents
    config: Config
    store: RecordStore
    engine: Engine
    caps: Caps  # a copy
    stale: threading.Event  # set once this generation is superseded
    prev: Analysed | None  # the unit's last analysis (carried over mid-edit)
    max_file_bytes: int
    program: Any = None  # analysis.program.Program: followed across the workspace (phase 2), or None
    release: Any = None  # analysis.contexts.JaxRelease: the jax release the unit is checked against
    release_choice: Any = None  # releases.ReleaseChoice: that release, and where it was found
    chip_claims: Any = None  # chips.ChipClaims of ``store``: what findings claim for config.tpu_generation


class Session:
    """``tell`` shows the user a problem (a bad setting, a missing records file); each message
    is told once per session, again after the configuration files change. ``note`` logs what
    the user may want to know but need not see (the jax release chosen)."""

    def __init__(self, tell: Callable[[str], None], note: Callable[[str], None] = lambda message: None) -> None:
        self.tell = tell
        self.note = note
        # (jax-version, where written, pyproject, python setting, root) -> releases.ReleaseChoice;
        # emptied when the settings or the configuration files change (the choice may too)
        self._releases: dict[tuple, Any] = {}
        self._releases_noted: set[str] = set()  # each choice logged once per change
        self.docs: dict[str, Document] = {}
        self.notebooks: dict[str, Notebook] = {}
        self.gens: dict[str, int] = {}  # unit -> generation, bumped by every change
        self.analysed: dict[str, Analysed] = {}
        self.deps: dict[str, set[str]] = {}  # unit -> module paths its last workspace analysis consulted
        # unit -> set once the unit's current generation is superseded: how a worker, which never
        # reads the live maps, tells that a queued job is stale.
        self.stale_flags: dict[str, threading.Event] = {}
        self.caps = Caps()
        self.settings = Settings()
        self.settings_gen = 0
        self.init_options: Any = None
        self.root: Path | None = None
        self.program = None  # analysis.program.Program over the workspace, once the root is known
        self._caches: AnalysisCaches | None = None  # made on first use (see caches)
        self._caches_lock = threading.Lock()
        self.open_texts = OpenTexts(lambda: self.caches)  # what the workspace worker reads for open documents
        self.told: set[str] = set()
        self._engine: Engine | None = None  # created by warm-up (or on first use)
        self._engine_key: tuple = ()  # the detection sections its rule set was built from
        self._engine_lock = threading.Lock()  # (warm-up builds it on the fast worker)
        self._stores: dict[tuple, RecordStore] = {}

    # --- units ------------------------------------------------------------------------------
    def unit_of(self, uri: str) -> str:
        doc = self.docs.get(uri)
        return doc.notebook if doc is not None and doc.notebook else uri

    def uris_of(self, unit: str) -> list[str]:
        nb = self.notebooks.get(unit)
        return list(nb.cells) if nb is not None else [unit]

    def open_text(self, item: lsp.TextDocumentItem) -> bool:
        """A text document opened; False when the uri is one of a notebook's cells."""
        doc = self.docs.get(item.uri)
        if doc is not None and doc.notebook:
            return False
        self.docs[item.uri] = Document(item.uri, item.text, item.version, item.language_id)
        self.bump(item.uri)
        return True

    def open_notebook(self, nb: Notebook, cells: list[lsp.TextDocumentItem]) -> None:
        self.notebooks[nb.uri] = nb
        self.open_cells(nb, cells)
        self.bump(nb.uri)

    def open_cells(self, nb: Notebook, cells: list[lsp.TextDocumentItem]) -> None:
        for c in cells:
            d = Document(c.uri, c.text, c.version, c.language_id)
            d.notebook = nb.uri
            self.docs[c.uri] = d

    def close(self, unit: str) -> list[str]:
        """The unit closed (a text document, or a notebook with its cells): everything kept for it
        goes, and a job still queued for it is stale. Returns the uris of its documents."""
        nb = self.notebooks.pop(unit, None)
        uris = list(nb.cells) if nb is not None else [unit]
        uris += [u for u, d in self.docs.items() if d.notebook == unit and u not in uris]
        for uri in uris:
            self.docs.pop(uri, None)
        if self._engine is not None:
            self._engine.forget(uri_to_path(unit) or unit)
        self.analysed.pop(unit, None)
        self.gens.pop(unit, None)
        self.deps.pop(unit, None)
        self.supersede(unit)
        return uris

    def reset(self) -> None:
        """The client left: every unit closed, and the next client is told problems anew."""
        for unit in {self.unit_of(u) for u in self.docs} | set(self.notebooks) | set(self.gens):
            self.close(unit)
        self.told.clear()

    def bump(self, unit: str) -> int:
        self.gens[unit] = self.gens.get(unit, 0) + 1
        self.supersede(unit)
        return self.gens[unit]

    def supersede(self, unit: str) -> None:
        """The unit's text changed (or it closed): jobs for its earlier generations are stale."""
        flag = self.stale_flags.pop(unit, None)
        if flag is not None:
            flag.set()

    def stale_flag(self, unit: str) -> threading.Event:
        """Set once the unit's current generation is superseded (read by the workers)."""
        flag = self.stale_flags.get(unit)
        if flag is None:
            flag = self.stale_flags[unit] = threading.Event()
        return flag

    @property
    def open_paths(self) -> dict[str, Document]:
        """The open text documents (not notebook cells) by absolute path."""
        out = {}
        for uri, d in self.docs.items():
            if d.notebook is None:
                p = uri_to_path(uri)
                if p:
                    out[os.path.abspath(p)] = d
        return out

    def snapshot(self, unit: str) -> UnitSnapshot | None:
        """The unit's current generation and what its analysis reads, taken now (None when the
        unit is not open). ``program`` is the workspace program its second phase follows."""
        nb = self.notebooks.get(unit)
        if nb is not None:
            text, slices = join_cells(nb, self.docs)
            docs = {s.uri: self.docs[s.uri].copy() for s in slices if s.uri in self.docs}
        elif (doc := self.docs.get(unit)) is not None:
            text, slices, docs = doc.text, None, {unit: doc.copy()}
        else:
            return None
        config = self.config_for(unit)
        store = self.store_for(config)
        limit = self.settings.max_file_bytes
        from ..chips import ChipClaims
        from ..releases import analysis_release

        choice = self.release_for(config)
        return UnitSnapshot(
            unit=unit, gen=self.gens.get(unit, 0), path=uri_to_path(unit) or unit, text=text, slices=slices,
            docs=docs, config=config, store=store, engine=self.engine_for(store), caps=replace(self.caps),
            stale=self.stale_flag(unit), prev=self.analysed.get(unit), max_file_bytes=limit,
            program=self.program_for(unit) if len(text) <= limit else None,
            release=analysis_release(choice.release_used), release_choice=choice,
            chip_claims=ChipClaims.of(store.records))

    def program_for(self, unit: str):
        """The workspace program, for a file inside the workspace (notebooks and files elsewhere
        are analysed on their own)."""
        if not self.settings.cross_module or self.root is None or unit in self.notebooks:
            return None
        path = uri_to_path(unit)
        if path is None:
            return None
        if self.program is None:
            from ..analysis.program import Program

            self.program = Program(self.root, read=self.open_texts.read,
                                   environment=self.settings.python_environment, caches=self.caches)
        return self.program if self.program.contains(path) else None

    def engine_pos(self, uri: str, pos: lsp.Position, a: Analysed) -> tuple[int, int] | None:
        """A client position in ``uri`` as an engine (line, col) of the analysed (joined) text."""
        doc = a.docs.get(uri)
        if doc is None:
            return None
        line, col = doc.engine_position(pos.line, pos.character, self.caps.encoding)
        if a.slices is not None:
            cell = next((s for s in a.slices if s.uri == uri), None)
            if cell is None:
                return None
            line += cell.first_line - 1
        return line, col

    # --- the engine and the records ---------------------------------------------------------
    @property
    def caches(self) -> "AnalysisCaches":
        """Block parses and disk texts, owned here and shared by every engine and program the
        session makes (an engine rebuilt for new records keeps the old one's parses). Made on
        first use: importing the server loads no analysis module."""
        with self._caches_lock:
            if self._caches is None:
                from ..analysis.caches import AnalysisCaches

                self._caches = AnalysisCaches()
            return self._caches

    @property
    def engine(self) -> Engine:
        """The analysis engine; keystrokes reuse its unchanged launches."""
        with self._engine_lock:
            if self._engine is None:
                from ..records import builtin_records
                from ..rules import default_engine
                from ..rules.data import detection_key

                records = builtin_records()[0]
                self._engine = default_engine(incremental=True, records=records, caches=self.caches)
                self._engine_key = detection_key(records)
            return self._engine

    def engine_for(self, store: RecordStore) -> Engine:
        """The engine whose rule set holds the built-in rules and the detection sections of
        ``store``'s records (a user's records file with one gets its own diagnostics)."""
        from ..rules.data import detection_key

        key = detection_key(store.records)
        engine = self.engine
        with self._engine_lock:
            if key == self._engine_key:
                return engine
            from ..rules import default_engine

            engine = default_engine(incremental=True, records=store.records, caches=self.caches)
            self._engine, self._engine_key = engine, key
            return engine

    def adopt_default_store(self, store: RecordStore) -> None:
        """Warm-up built the store for no extra records: keep it, unless one was built meanwhile."""
        if not self._stores:
            self._stores = {(): store}

    def store_for(self, cfg: Config) -> RecordStore:
        key = tuple(sorted(cfg.records))
        mtimes = []
        for r in key:
            try:
                mtimes.append(os.stat(r).st_mtime_ns)
            except OSError:
                mtimes.append(0)
        full = key + tuple(mtimes)
        store = self._stores.get(full)
        if store is None:
            from ..records import default_store

            store = default_store()
            for r in key:
                if not Path(r).exists():
                    self.notify_problem(f"records file not found: {r}")
                    continue
                for prob in store.add_path(r):
                    self.notify_problem(f"bad record file: {prob}")
            self._stores = {full: store}
        return store

    def store(self, unit: str) -> RecordStore:
        return self.store_for(self.config_for(unit))

    # --- configuration ----------------------------------------------------------------------
    def config_for(self, unit: str) -> Config:
        """The unit's settings: its pyproject.toml's over the editor's, each one's rules checked
        against the rule set of the records both name (a team's records declare rules that
        ``select`` may name, whichever of the two names them)."""
        path = uri_to_path(unit)
        base = Config(select=self.settings.select, ignore=self.settings.ignore,
                      records=tuple(self.settings.records), backends=self.settings.backends,
                      jax_version=self.settings.jax_version,
                      jax_version_from="jaxVersion" if self.settings.jax_version is not None else None,
                      tpu_generation=self.settings.tpu_generation,
                      tpu_generation_from="tpuGeneration" if self.settings.tpu_generation is not None else None)
        cfg = Config()
        if path is not None:
            try:
                cfg = find_config(path, stop_at=self.root)
            except Exception:  # noqa: BLE001 - a broken config never stops analysis
                log.exception("reading config for %s", path)
        rules = self.engine_for(self.store_for(cfg.merged(base))).rules
        cfg = with_known_rules(cfg, rules).merged(with_known_rules(base, rules, "pallas-lsp setting"))
        if base.jax_version is not None:  # (the editor's explicit jaxVersion over a pyproject's jax-version)
            cfg = replace(cfg, jax_version=base.jax_version, jax_version_from=base.jax_version_from)
        if base.tpu_generation is not None:  # (and its explicit tpuGeneration over a pyproject's)
            cfg = replace(cfg, tpu_generation=base.tpu_generation, tpu_generation_from=base.tpu_generation_from)
        for p in cfg.problems:
            self.notify_problem(p)
        return cfg

    def release_for(self, cfg: Config):
        """The jax release a unit with settings ``cfg`` is checked against (releases.ReleaseChoice),
        chosen as ``check`` chooses it, the ``pythonEnvironment`` setting naming the workspace's
        environment; each new choice logged once (the server's status)."""
        from ..releases import release_for_config

        key = (cfg.jax_version, cfg.jax_version_from, cfg.source, self.settings.python_environment,
               str(self.root))
        got = self._releases.get(key)
        if got is None:
            got = self._releases[key] = release_for_config(cfg, self.settings.python_environment, self.root)
            if got.problem:
                self.notify_problem(got.problem)
            words = got.described()
            if words not in self._releases_noted:
                self._releases_noted.add(words)
                log.info("checking against %s", words)
                self.note(f"pallas-lsp: checking against {words}")
        return got

    def _release_may_change(self) -> None:
        self._releases.clear()
        self._releases_noted.clear()

    def config_files_changed(self) -> None:
        """A records file, a pyproject.toml or the workspace's jax changed on disk: read them
        again, tell their problems again, and choose the release again."""
        self._stores.clear()
        self.told.clear()
        self._release_may_change()

    def notify_problem(self, message: str) -> None:
        if message in self.told:
            return
        self.told.add(message)
        log.warning(message)
        self.tell(message)

    def apply_settings(self, obj: Any) -> bool:
        """Settings from the client; True when they changed."""
        new, problems = parse_settings(obj, self.settings)
        for p in problems:
            self.notify_problem(p)
        if new == self.settings:
            return False
        self.settings = new
        self.settings_gen += 1
        self._release_may_change()
        logging.getLogger("pallas_lsp").setLevel(LOG_LEVELS[new.log_level])
        return True
