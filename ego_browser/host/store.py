"""The host's state store: spaces, page labels and ref ledgers in SQLite (WAL).

The host is the only writer. Every mutation is one transaction, so a crash leaves either the
old or the new state, never half of one; a corrupt ledger record is dropped, not trusted.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Store", "SpaceRow", "PageRow"]

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

# page states; an unmanaged tab of a space is stored with label "#<target id>"
OPEN = "open"
CLOSED = "closed"
RELEASED = "released"
UNMANAGED = "unmanaged"


@dataclass
class SpaceRow:
    id: int
    name: str
    task_id: str
    ownership: str
    reason: str | None
    created_by: str
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
    opened_by: str
    state: str
    opener: str | None = None
    url: str | None = None
    reported: bool = True
    seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Store:
    def __init__(self, path: Path) -> None:
        self.path = path
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
        path.chmod(0o600)
        #: bumped by every write to spaces or pages: readers may cache rows until it changes
        self.gen = 0

    def close(self) -> None:
        self.db.close()

    # -- helpers ----------------------------------------------------------------------------

    def _tx(self, statements: list[tuple[str, tuple]]) -> None:
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            for sql, args in statements:
                db.execute(sql, args)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def get_meta(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- spaces -----------------------------------------------------------------------------

    def _space(self, row: tuple) -> SpaceRow:
        return SpaceRow(
            id=row[0], name=row[1], task_id=row[2], ownership=row[3], reason=row[4], created_by=row[5],
            isolated=bool(row[6]), context_id=row[7], profile_id=row[8], status=row[9],
            next_label=row[10], user_page=row[11], browser_instance=row[12], control_since=row[13],
            window_id=row[14], created_at=row[15], closed=bool(row[16]),
        )

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

    def create_space(
        self, *, name: str, isolated: bool, context_id: str | None, profile_id: str,
        browser_instance: str, created_by: str = "agent",
    ) -> int:
        self.gen += 1
        now = time.time()
        cur = self.db.execute(
            "INSERT INTO spaces(name, task_id, ownership, created_by, isolated, context_id, profile_id,"
            " browser_instance, control_since, created_at) VALUES (?, ?, 'agent', ?, ?, ?, ?, ?, ?, ?)",
            (name, uuid.uuid4().hex, created_by, int(isolated), context_id, profile_id, browser_instance, now, now),
        )
        return int(cur.lastrowid)

    def update_space(self, space_id: int, **fields: Any) -> None:
        self.gen += 1
        if not fields:
            return
        cols = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE spaces SET {cols} WHERE id=?", (*fields.values(), space_id))

    def close_space(self, space_id: int) -> None:
        self.gen += 1
        self._tx([
            ("UPDATE spaces SET closed=1 WHERE id=?", (space_id,)),
            ("DELETE FROM ledgers WHERE space_id=?", (space_id,)),
        ])

    def take_label(self, space_id: int) -> str:
        """Reserve the next ``pN`` label; numbers only grow, so a label is never reused."""
        self.gen += 1
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            while True:
                (n,) = db.execute("SELECT next_label FROM spaces WHERE id=?", (space_id,)).fetchone()
                db.execute("UPDATE spaces SET next_label=? WHERE id=?", (n + 1, space_id))
                label = f"p{n}"
                if not db.execute(
                    "SELECT 1 FROM pages WHERE space_id=? AND label=?", (space_id, label)
                ).fetchone():
                    break
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return label

    # -- pages ------------------------------------------------------------------------------

    def pages(self, space_id: int) -> list[PageRow]:
        rows = self.db.execute(
            "SELECT space_id, label, target_id, opened_by, state, opener, url, reported, seq FROM pages"
            " WHERE space_id=? ORDER BY seq",
            (space_id,),
        ).fetchall()
        return [PageRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in rows]

    def pages_of_target(self, target_id: str) -> list[PageRow]:
        """The records of one tab (in open spaces), whatever space and label they have."""
        rows = self.db.execute(
            "SELECT p.space_id, p.label, p.target_id, p.opened_by, p.state, p.opener, p.url, p.reported, p.seq"
            " FROM pages p JOIN spaces s ON s.id = p.space_id WHERE p.target_id=? AND s.closed=0",
            (target_id,),
        ).fetchall()
        return [PageRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], bool(r[7]), r[8]) for r in rows]

    def add_page(
        self, space_id: int, label: str, target_id: str, opened_by: str, *,
        opener: str | None = None, url: str | None = None, reported: bool = True, state: str = OPEN,
    ) -> PageRow:
        self.gen += 1
        (seq,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM pages").fetchone()
        self.db.execute(
            "INSERT OR REPLACE INTO pages(space_id, label, target_id, opened_by, state, opener, url, reported, seq)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (space_id, label, target_id, opened_by, state, opener, url, int(reported), seq),
        )
        return PageRow(space_id, label, target_id, opened_by, state, opener, url, reported, seq)

    def update_page(self, space_id: int, label: str, **fields: Any) -> None:
        self.gen += 1
        if "reported" in fields:
            fields["reported"] = int(fields["reported"])
        cols = ", ".join(f"{k}=?" for k in fields)
        self.db.execute(f"UPDATE pages SET {cols} WHERE space_id=? AND label=?", (*fields.values(), space_id, label))

    def retire_page(self, space_id: int, label: str, state: str) -> None:
        self.gen += 1
        self._tx([
            ("UPDATE pages SET state=? WHERE space_id=? AND label=?", (state, space_id, label)),
            ("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label)),
        ])

    def delete_page_record(self, space_id: int, label: str) -> None:
        self.gen += 1
        self._tx([
            ("DELETE FROM pages WHERE space_id=? AND label=?", (space_id, label)),
            ("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label)),
        ])

    # -- ledgers ----------------------------------------------------------------------------

    def save_ledger(self, space_id: int, label: str, data: bytes) -> None:
        self.db.execute(
            "INSERT OR REPLACE INTO ledgers(space_id, label, data) VALUES (?, ?, ?)", (space_id, label, data)
        )

    def delete_ledger(self, space_id: int, label: str) -> None:
        self.db.execute("DELETE FROM ledgers WHERE space_id=? AND label=?", (space_id, label))

    def load_ledger(self, space_id: int, label: str) -> bytes | None:
        """The stored ledger bytes; the snapshot engine discards a corrupt record itself."""
        row = self.db.execute(
            "SELECT data FROM ledgers WHERE space_id=? AND label=?", (space_id, label)
        ).fetchone()
        return bytes(row[0]) if row else None
