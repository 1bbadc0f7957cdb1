"""The host's state store: spaces, page labels and ref ledgers in SQLite (WAL).

The host is the only writer. Every mutation is one transaction, so a crash leaves either the
old or the new state, never half of one; a corrupt ledger record is dropped, not trusted.

Faults: a store that fails SQLite's quick check (or is not a database at all) is moved aside
under a timestamped name when the host starts, and a fresh one is used; a notice saying so is
kept in the fresh store until a round prints it. A write that the disk refuses (full,
read-only, damaged) raises :class:`StateStoreUnwritable`; the caller undoes what it did in
the browser for that change.

Retention: finished spaces drop their pages and ledgers at once and only the last
``CLOSED_SPACES_KEPT`` space rows are remembered; each space remembers its last
``CLOSED_PAGES_KEPT`` closed pages (so a recent label still says "closed"). A host that runs
for weeks keeps a store of bounded size.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import sqlite3
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import EgoError, StateStoreUnwritable
from ...states import CreatedBy, OpenedBy, Ownership, PageState
from .journal import Journal

__all__ = ["Store", "SpaceRow", "PageRow", "integrity_problem", "quarantine"]

logger = logging.getLogger("ego_browser.host")

#: closed pages remembered per space; older ones report "label not found"
CLOSED_PAGES_KEPT = 64
#: finished spaces whose rows are remembered (their pages and ledgers go at once)
CLOSED_SPACES_KEPT = 256

# SQLite primary result codes (sqlite3.Error.sqlite_errorcode & 0xff)
_SQLITE_READONLY, _SQLITE_CORRUPT, _SQLITE_FULL, _SQLITE_NOTADB = 8, 11, 13, 26

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS spaces (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    task_id TEXT NOT NULL,
    ownership TEXT NOT NULL,
    reason TEXT,
    created_by TEXT NOT NULL,
    isolated INTEGER NOT NULL DEFAULT 0,
    context_id TEXT,
    profile_id TEXT NOT NULL DEFAULT 'default',
    status TEXT,
    next_label INTEGER NOT NULL DEFAULT 1,
    user_page TEXT,
    browser_instance TEXT,
    control_since REAL NOT NULL DEFAULT 0,
    window_id INTEGER,
    created_at REAL NOT NULL,
    closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS pages (
    space_id INTEGER NOT NULL,
    label TEXT NOT NULL,
    target_id TEXT,
    opened_by TEXT NOT NULL,
    state TEXT NOT NULL,
    opener TEXT,
    url TEXT,
    reported INTEGER NOT NULL DEFAULT 1,
    seq INTEGER NOT NULL,
    PRIMARY KEY (space_id, label)
);
CREATE INDEX IF NOT EXISTS pages_by_target ON pages(target_id);
CREATE TABLE IF NOT EXISTS ledgers (
    space_id INTEGER NOT NULL,
    label TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (space_id, label)
);
"""

# page states (the names other modules import); an unmanaged tab of a space is stored with
# label "#<target id>"
OPEN = PageState.OPEN
CLOSED = PageState.CLOSED
RELEASED = PageState.RELEASED
UNMANAGED = PageState.UNMANAGED


@dataclass
class SpaceRow:
    id: int
    name: str
    task_id: str
    ownership: Ownership
    reason: str | None
    created_by: CreatedBy
    isolated: bool
    context_id: str | None
    profile_id: str
    status: str | None
    next_label: int
    user_page: str | None
    browser_instance: str | None
    control_since: float
    window_id: int | None
    created_at: float
    closed: bool


@dataclass
class PageRow:
    space_id: int
    label: str
    target_id: str | None
    opened_by: OpenedBy
    state: PageState
    opener: str | None = None
    url: str | None = None
    reported: bool = True
    seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


def _primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def is_corrupt(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is damaged or not a database at all."""
    if _primary_code(exc) in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return True
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def unwritable(path: Path, exc: sqlite3.Error | OSError) -> StateStoreUnwritable:
    """The documented error for a write the store refused, with what the person can do."""
    code = _primary_code(exc) if isinstance(exc, sqlite3.Error) else None
    if isinstance(exc, OSError):
        code = {errno.ENOSPC: _SQLITE_FULL, errno.EROFS: _SQLITE_READONLY, errno.EACCES: _SQLITE_READONLY,
                errno.EPERM: _SQLITE_READONLY}.get(exc.errno or 0)
    text = str(exc).lower()
    where = path.resolve().parent  # the folder that must take writes (the store may be a link)
    if code == _SQLITE_FULL or "full" in text:
        reason, hint = "full", f"free disk space on the file system holding {where}"
    elif code == _SQLITE_READONLY or "readonly" in text or "read-only" in text:
        reason, hint = "read_only", f"make {where} writable, or set EGO_BROWSER_HOME to a writable folder"
    elif isinstance(exc, sqlite3.Error) and is_corrupt(exc):
        reason, hint = "corrupt", (
            "stop the host (ego-browser host stop): the next start moves the damaged store "
            "aside and starts a fresh one"
        )
    else:
        reason, hint = "io", f"check that {where} is writable and the disk is healthy"
    return StateStoreUnwritable(
        f"the ego_browser state store {path} could not record the change ({exc}); nothing was changed. "
        f"{hint[0].upper() + hint[1:]}, then run the round again",
        path=str(path), reason=reason,
    )


def _writes(fn: Any) -> Any:
    """A store write: SQLite's refusal becomes :class:`StateStoreUnwritable` (a documented code)."""

    @functools.wraps(fn)
    def wrapper(self: Store, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise unwritable(self.path, exc) from None

    return wrapper


def _odd_row(path: Path, table: str, row: tuple[Any, ...], exc: Exception) -> EgoError:
    logger.error("state store %s: a %s row it cannot read (%s)", path, table, exc)
    return EgoError(
        f"the ego_browser state store {path} holds a {table} row of an unexpected type (first column "
        f"{row[0]!r}: {exc}); it was edited by hand or by a newer release. Run ego-browser doctor, "
        "or stop the host and move the file aside to start afresh")


def integrity_problem(db: sqlite3.Connection) -> str | None:
    """SQLite's quick check of an open store: ``None`` when sound, else what it found."""
    rows = db.execute("PRAGMA quick_check").fetchall()
    found = [str(r[0]) for r in rows]
    if found == ["ok"]:
        return None
    return "; ".join(found[:3]) or "quick_check returned nothing"


def quarantine(path: Path) -> Path:
    """Move a damaged store (and its WAL/SHM files) aside under a timestamped name; kept for
    inspection, never deleted."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(target) + suffix))
    return target


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
        #: bumped by every write to spaces or pages: readers may cache rows until it changes
        self.gen = 0
        #: where a damaged store found at start-up was moved (None: it was sound)
        self.quarantined: Path | None = None
        try:
            self._open()
            problem = integrity_problem(self.db)
        except (sqlite3.Error, OSError) as exc:
            self._close_quietly()
            if not isinstance(exc, sqlite3.Error) or not is_corrupt(exc):
                raise unwritable(path, exc) from None
            problem = str(exc)
        if problem is None:
            return
        self._close_quietly()
        self.quarantined = quarantine(path)
        notice = (
            f"the state store {path} was damaged ({problem}); it was moved to {self.quarantined.name} "
            "and a fresh store started: task spaces, labels and refs from before are forgotten; tabs "
            "still open from before are listed in a space of the person's named \"recovered tabs\""
        )
        logger.warning(notice)
        try:
            self._open()
            self.set_meta("notice", notice)
        except (sqlite3.Error, OSError) as exc:
            self._close_quietly()
            raise unwritable(path, exc) from None

    def _open(self) -> None:
        path = self.path
        # SQLite gives the -wal and -shm files the database file's mode: make that 0600 first
        os.close(os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600))
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                if os.stat(f"{path}{suffix}").st_mode & 0o077:
                    os.chmod(f"{path}{suffix}", 0o600)
        self.db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(_SCHEMA)
        self.path.chmod(0o600)

    def _close_quietly(self) -> None:
        db = getattr(self, "db", None)
        if db is not None:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def close(self) -> None:
        self.db.close()

    @functools.cached_property
    def journal(self) -> Journal:
        """The spaces' journals (``host/core/journal.py``): their own tables in this database."""
        return Journal(self.db)

    def take_notice(self) -> str | None:
        """The notice a round should print once (the store was replaced), then forgotten."""
        try:
            text = self.get_meta("notice")
            if text:
                self.db.execute("DELETE FROM meta WHERE key='notice'")
            return text
        except sqlite3.Error:
            return None  # kept for a later round

    def peek_notice(self) -> str | None:
        try:
            return self.get_meta("notice")
        except sqlite3.Error:
            return None

    def size(self) -> int:
        """Bytes on disk (database and WAL): the soak benchmark watches it stay bounded."""
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += os.stat(str(self.path) + suffix).st_size
        return total

    # -- helpers ----------------------------------------------------------------------------

    def _tx(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                db.execute(sql, args)
            db.execute("COMMIT")  # in WAL mode the pages are written here: it can fail too
        except BaseException:
            self._rollback()
            raise

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    @_writes
    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- spaces -----------------------------------------------------------------------------

    def _space(self, row: tuple[Any, ...]) -> SpaceRow:
        try:
            return self._space_row(row)
        except (ValueError, TypeError) as exc:  # a row someone edited by hand, or a newer schema's
            raise _odd_row(self.path, "spaces", row, exc) from None

    def _space_row(self, row: tuple[Any, ...]) -> SpaceRow:
        if not isinstance(row[0], int) or not isinstance(row[1], str):
            raise TypeError(f"id {row[0]!r} / name {type(row[1]).__name__}")
        return SpaceRow(
            id=row[0], name=row[1], task_id=row[2], ownership=Ownership(row[3]), reason=row[4],
            created_by=CreatedBy(row[5]),
            isolated=bool(row[6]), context_id=row[7], profile_id=row[8], status=row[9],
            next_label=row[10], user_page=row[11], browser_instance=row[12], control_since=row[13],
            window_id=row[14], created_at=row[15], closed=bool(row[16]),
        )

    def _page(self, r: tuple[Any, ...]) -> PageRow:
        try:
            if not isinstance(r[1], str) or not (r[2] is None or isinstance(r[2], str)):
                raise TypeError(f"label {r[1]!r} / target {type(r[2]).__name__}")
            return PageRow(r[0], r[1], r[2], OpenedBy(r[3]), PageState(r[4]), r[5], r[6], bool(r[7]), r[8])
        except (ValueError, TypeError) as exc:
            raise _odd_row(self.path, "pages", r, exc) from None

    _SPACE_COLS = (
        "id, name, task_id, ownership, reason, created_by, isolated, context_id, profile_id, status, "
        "next_label, user_page, browser_instance, control_since, window_id, created_at, closed"
    )

    def spaces(self) -> list[SpaceRow]:
        rows = self.db.execute(f"SELECT {self._SPACE_COLS} FROM spaces WHERE closed=0 ORDER BY id").fetchall()
        return [self._space(r) for r in rows]

    def space(self, space_id: int) -> SpaceRow | None:
        row = self.db.execute(
            f"SELECT {self._SPACE_COLS} FROM spaces WHERE id=? AND closed=0", (space_id,)
        ).fetchone()
        return self._space(row) if row else None

    def space_by_name(self, name: str) -> list[SpaceRow]:
        rows = self.db.execute(
            f"SELECT {self._SPACE_COLS} FROM spaces WHERE name=? AND closed=0 ORDER BY id", (name,)
        ).fetchall()
        return [self._space(r) for r in rows]

    @_writes
    def create_space(
        self, *, name: str, isolated: bool, context_id: str | None, profile_id: str,
        browser_instance: str, created_by: CreatedBy = CreatedBy.AGENT,
    ) -> int:
        self.gen += 1
        now = time.time()
        cur = self.db.execute(
            "INSERT INTO spaces(name, task_id, ownership, created_by, isolated, context_id, profile_id,"
            " browser_instance, control_since, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (name, uuid.uuid4().hex, Ownership.AGENT, created_by, int(isolated), context_id, profile_id, browser_instance, now, now),
        )
        return int(cur.lastrowid or 0)

    @_writes
    def create_space_with_page(
        self, *, name: str, isolated: bool, context_id: str | None, profile_id: str,
        browser_instance: str, target_id: str, created_by: CreatedBy = CreatedBy.AGENT,
        ownership: Ownership = Ownership.AGENT,
        reason: str | None = None,
    ) -> tuple[int, PageRow]:
        """A new space and its first tab in one transaction: either both are recorded or neither
        (the caller closes the tab then). An agent's tab gets ``p1``; a person's is unmanaged."""
        self.gen += 1
        now = time.time()
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                "INSERT INTO spaces(name, task_id, ownership, reason, created_by, isolated, context_id, profile_id,"
                " browser_instance, control_since, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (name, uuid.uuid4().hex, ownership, reason, created_by, int(isolated), context_id, profile_id,
                 browser_instance, now, now),
            )
            space_id = int(cur.lastrowid or 0)
            if created_by == CreatedBy.AGENT:
                label, state, opened_by = self._next_label(space_id), OPEN, OpenedBy.AGENT
            else:
                label, state, opened_by = "#" + target_id, UNMANAGED, OpenedBy.UNKNOWN
            row = self._insert_page(space_id, label, target_id, opened_by, None, "about:blank", True, state)
            db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return space_id, row

    @_writes
    def update_space(self, space_id: int, **fields: Any) -> None:
        self.gen += 1
        if not fields:
            return
        if "ownership" in fields:
            fields["ownership"] = Ownership(fields["ownership"])  # a value outside the set is a bug here
        cols = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE spaces SET {cols} WHERE id=?", (*fields.values(), space_id))

    @_writes
    def close_space(self, space_id: int) -> None:
        """Finish a space: its pages and ledgers go now; only the newest finished rows stay."""
        self.gen += 1
        self._tx([
            ("UPDATE spaces SET closed=1 WHERE id=?", (space_id,)),
            ("DELETE FROM ledgers WHERE space_id=?", (space_id,)),
            ("DELETE FROM pages WHERE space_id=?", (space_id,)),
            ("DELETE FROM spaces WHERE closed=1 AND id NOT IN"
             " (SELECT id FROM spaces WHERE closed=1 ORDER BY id DESC LIMIT ?)", (CLOSED_SPACES_KEPT,)),
        ])

    def _rollback(self) -> None:
        if self.db.in_transaction:  # SQLite may have rolled back by itself (disk full)
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")

    def _next_label(self, space_id: int) -> str:
        """Inside a transaction: reserve the next ``pN``; numbers only grow, never reused."""
        db = self.db
        while True:
            (n,) = db.execute("SELECT next_label FROM spaces WHERE id=?", (space_id,)).fetchone()
            db.execute("UPDATE spaces SET next_label=? WHERE id=?", (n + 1, space_id))
            label = f"p{n}"
            if not db.execute("SELECT 1 FROM pages WHERE space_id=? AND label=?", (space_id, label)).fetchone():
                return label

    @_writes
    def take_label(self, space_id: int) -> str:
        """Reserve the next ``pN`` label; numbers only grow, so a label is never reused."""
        self.gen += 1
        self.db.execute("BEGIN IMMEDIATE")
        try:
            label = self._next_label(space_id)
            self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return label

    @_writes
    def add_labelled_page(
        self, space_id: int, target_id: str, opened_by: OpenedBy, *, opener: str | None = None,
        url: str | None = None, reported: bool = True,
    ) -> PageRow:
        """Take the next label and record the tab under it in one transaction."""
        self.gen += 1
        self.db.execute("BEGIN IMMEDIATE")
        try:
            label = self._next_label(space_id)
            row = self._insert_page(space_id, label, target_id, opened_by, opener, url, reported, OPEN)
            self.db.execute("COMMIT")
        except BaseException:
            self._rollback()
            raise
        return row

    # -- pages ------------------------------------------------------------------------------

    def pages(self, space_id: int) -> list[PageRow]:
        rows = self.db.execute(
            "SELECT space_id, label, target_id, opened_by, state, opener, url, reported, seq FROM pages"
            " WHERE space_id=? ORDER BY seq",
            (space_id,),
        ).fetchall()
        return [self._page(r) for r in rows]

    def all_target_ids(self) -> set[str]:
        """Every tab any record names (open spaces, any state)."""
        rows = self.db.execute(
            "SELECT p.target_id FROM pages p JOIN spaces s ON s.id = p.space_id"
            " WHERE s.closed=0 AND p.target_id IS NOT NULL"
        ).fetchall()
        return {r[0] for r in rows}

    def listed_target_ids(self) -> set[str]:
        """The tabs some open space lists (its pages and unmanaged tabs)."""
        rows = self.db.execute(
            "SELECT p.target_id FROM pages p JOIN spaces s ON s.id = p.space_id"
            " WHERE s.closed=0 AND p.target_id IS NOT NULL AND p.state IN (?, ?)", (OPEN, UNMANAGED),
        ).fetchall()
        return {r[0] for r in rows}

    def pages_of_target(self, target_id: str) -> list[PageRow]:
        """The records of one tab (in open spaces), whatever space and label they have."""
        rows = self.db.execute(
            "SELECT p.space_id, p.label, p.target_id, p.opened_by, p.state, p.opener, p.url, p.reported, p.seq"
            " FROM pages p JOIN spaces s ON s.id = p.space_id WHERE p.target_id=? AND s.closed=0",
            (target_id,),
        ).fetchall()
        return [self._page(r) for r in rows]

    @_writes
    def add_page(
        self, space_id: int, label: str, target_id: str, opened_by: OpenedBy, *,
        opener: str | None = None, url: str | None = None, reported: bool = True, state: PageState = OPEN,
    ) -> PageRow:
        self.gen += 1
        return self._insert_page(space_id, label, target_id, opened_by, opener, url, reported, state)

    def _insert_page(
        self, space_id: int, label: str, target_id: str, opened_by: OpenedBy, opener: str | None,
        url: str | None, reported: bool, state: PageState,
    ) -> PageRow:
        opened_by, state = OpenedBy(opened_by), PageState(state)  # a value outside the sets is a bug here
        (seq,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM pages").fetchone()
        self.db.execute(
            "INSERT OR REPLACE INTO pages(space_id, label, target_id, opened_by, state, opener, url, reported, seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (space_id, label, target_id, opened_by, state, opener, url, int(reported), seq),
        )
        return PageRow(space_id, label, target_id, opened_by, state, opener, url, reported, seq)

    @_writes
    def update_page(self, space_id: int, label: str, **fields: Any) -> None:
        self.gen += 1
        if "reported" in fields:
            fields["reported"] = int(fields["reported"])
        cols = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE pages SET {cols} WHERE space_id=? AND label=?", (*fields.values(), space_id, label))

    @_writes
    def retire_page(self, space_id: int, label: str, state: PageState) -> None:
        self.gen += 1
        statements = [
            ("UPDATE pages SET state=? WHERE space_id=? AND label=?", (state, space_id, label)),
            ("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label)),
        ]
        if state == CLOSED:
            statements.append((
                "DELETE FROM pages WHERE space_id=? AND state=? AND seq NOT IN"
                " (SELECT seq FROM pages WHERE space_id=? AND state=? ORDER BY seq DESC LIMIT ?)",
                (space_id, CLOSED, space_id, CLOSED, CLOSED_PAGES_KEPT),
            ))
        self._tx(statements)

    @_writes
    def delete_page_record(self, space_id: int, label: str) -> None:
        self.gen += 1
        self._tx([
            ("DELETE FROM pages WHERE space_id=? AND label=?", (space_id, label)),
            ("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label)),
        ])

    # -- ledgers ----------------------------------------------------------------------------

    @_writes
    def save_ledger(self, space_id: int, label: str, data: bytes) -> None:
        # only for an open page: a late save after a close would leave a row nothing removes
        self.db.execute(
            "INSERT OR REPLACE INTO ledgers(space_id, label, data) SELECT ?, ?, ? WHERE EXISTS"
            " (SELECT 1 FROM pages WHERE space_id=? AND label=? AND state=?)",
            (space_id, label, data, space_id, label, OPEN),
        )

    @_writes
    def delete_ledger(self, space_id: int, label: str) -> None:
        self.db.execute("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label))

    def load_ledger(self, space_id: int, label: str) -> bytes | None:
        """The stored ledger bytes; the snapshot engine discards a corrupt record itself."""
        row = self.db.execute(
            "SELECT data FROM ledgers WHERE space_id=? AND label=?", (space_id, label)
        ).fetchone()
        return bytes(row[0]) if row else None
