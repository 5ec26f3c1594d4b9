"""What an analysis keeps between runs, as one object its owner holds (an :class:`Engine`, a
:class:`Program`): block parses and splits (:class:`module.ParseCache`) and the files read from
disk (:class:`DiskTexts`). Nothing is kept in module globals, so two engines never share state;
the language server hands its engine's caches to its workspace program, so both read the same
parses of a document and the same file texts."""
from __future__ import annotations

import os
import stat
import threading

from ..files import MAX_SOURCE_BYTES, FileReadError, SourceDecodeError, decode_source, describe_os_error, read_regular
from .module import ParseCache


def _stat_key(st: os.stat_result) -> tuple[int, int, int, int]:
    # (ctime too: a rewrite that keeps size and mtime, `touch -d`, still changes it)
    return st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino


def read_source_uncached(path: str, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """A Python file's text, decoded as CPython decodes it (:func:`files.decode_source`), read
    only if it is a regular file of at most ``max_bytes`` bytes (never blocking). Raises
    :class:`FileReadError` or :class:`SourceDecodeError`."""
    data, _ = read_regular(path, max_bytes)
    return decode_source(data)


class DiskTexts:
    """Files' texts cached by their stat (mtime, ctime, size, inode): a workspace scan re-reads
    only what changed."""

    LIMIT = 20_000  # files kept (all are dropped past it)

    def __init__(self) -> None:
        self._texts: dict[str, tuple[tuple[int, int, int, int], str]] = {}  # path -> (its stat, its text)
        self._lock = threading.Lock()

    def read_source(self, path: str, max_bytes: int = MAX_SOURCE_BYTES) -> str:
        """:func:`read_source_uncached`, from the cache while the file's stat is unchanged."""
        try:
            st = os.stat(path)
        except OSError as exc:
            self.release(path)
            raise FileReadError(path, describe_os_error(exc)) from exc
        hit = self._texts.get(path)
        if hit is not None and hit[0] == _stat_key(st) and st.st_size <= max_bytes and stat.S_ISREG(st.st_mode):
            return hit[1]
        data, st = read_regular(path, max_bytes)
        text = decode_source(data)
        with self._lock:
            if len(self._texts) > self.LIMIT:
                self._texts.clear()
            self._texts[path] = (_stat_key(st), text)
        return text

    def read(self, path: str, max_bytes: int = MAX_SOURCE_BYTES) -> str | None:
        """:meth:`read_source`, or None for a file that is not read (not a regular file, too
        large, unreadable) or that CPython would not decode: such a module is not followed."""
        try:
            return self.read_source(path, max_bytes)
        except (FileReadError, SourceDecodeError):
            return None

    def release(self, path: str) -> None:
        """Stop keeping a file's text (a module that does not concern Pallas: its facts are all
        that is needed, and memory must not grow with such files)."""
        with self._lock:
            self._texts.pop(path, None)

    def clear(self) -> None:
        with self._lock:
            self._texts.clear()

    def __contains__(self, path: str) -> bool:
        return path in self._texts


class AnalysisCaches:
    """The caches one owner keeps (see the module docstring); ``clear`` starts them afresh."""

    def __init__(self) -> None:
        self.parses = ParseCache()
        self.disk = DiskTexts()

    def clear(self) -> None:
        self.parses.clear()
        self.disk.clear()


__all__ = ["AnalysisCaches", "DiskTexts", "ParseCache", "read_source_uncached"]
