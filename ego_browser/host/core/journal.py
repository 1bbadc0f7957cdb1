"""The journal: every round and every action of a space, kept in the host's store.

Format version :data:`FORMAT` (``docs/learning.md`` documents every field; the trace viewer
and ``task.learn`` read it). One row per round and one per action, JSON in SQLite next to the
spaces (``host/core/store.py``'s database, its own tables), so it survives a host restart.

Bounds (per space): :data:`MAX_ROUNDS` rounds (the oldest go first, with their actions),
:data:`MAX_ACTIONS` actions per round, scripts cut at :data:`MAX_SCRIPT` characters, values at
:data:`MAX_VALUE`. A finished space's journal goes with it unless a tool was learned from it
(:meth:`Journal.keep`); at most :data:`MAX_KEPT_SPACES` such journals are kept.

Never stored: a value typed into a password field (``[password]`` stands in) or passed as a
secret (``{"$secret": NAME}`` on the wire: ``[secret:NAME]``); a round's script has the
literal password values it typed replaced the same way before it is stored.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from typing import Any

import orjson

__all__ = ["FORMAT", "Journal", "MAX_ROUNDS", "MAX_ACTIONS", "MAX_SCRIPT", "MAX_VALUE", "MAX_KEPT_SPACES",
           "PASSWORD", "masked_value"]

#: the record format's version (bumped only for a change a reader must know of)
FORMAT = 1
MAX_ROUNDS = 200
MAX_ACTIONS = 500
MAX_SCRIPT = 20_000
MAX_VALUE = 2_000
MAX_KEPT_SPACES = 64
PASSWORD = "[password]"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS journal_rounds (
    space_id INTEGER NOT NULL, n INTEGER NOT NULL, token TEXT NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (space_id, n)
);
CREATE TABLE IF NOT EXISTS journal_actions (
    space_id INTEGER NOT NULL, seq INTEGER NOT NULL, n INTEGER NOT NULL, data BLOB NOT NULL,
    PRIMARY KEY (space_id, seq)
);
CREATE TABLE IF NOT EXISTS journal_kept (space_id INTEGER PRIMARY KEY, at REAL NOT NULL);
"""


def masked_value(value: Any) -> Any:
    """``value`` as the journal may keep it: a secret reference named, long text cut."""
    if isinstance(value, dict) and isinstance(value.get("$secret"), str):
        return f"[secret:{value['$secret']}]"
    if isinstance(value, str):
        return value[:MAX_VALUE]
    if isinstance(value, (list, tuple)):
        return [masked_value(v) for v in value][:100]
    if isinstance(value, dict):
        return {str(k): masked_value(v) for k, v in list(value.items())[:50]}
    return value


class Journal:
    """The journal tables over the host store's connection (the host is their only writer)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        db.executescript(_SCHEMA)
        #: (space, token) -> literal values to take out of that round's script (memory only)
        self._redact: dict[tuple[int, str], set[str]] = {}
        #: (space, page label) -> the last element acted on is a password field (keyboard input
        #: that follows goes there: its text is masked too)
        self.password_focus: dict[tuple[int, str], bool] = {}

    # -- writing ------------------------------------------------------------------------------

    def _round_of(self, space_id: int, token: str) -> int:
        """The number of the round ``token`` is in this space, a new one if it has none yet."""
        row = self.db.execute("SELECT n FROM journal_rounds WHERE space_id=? AND token=? ORDER BY n DESC LIMIT 1",
                              (space_id, token)).fetchone()
        if row:
            return int(row[0])
        (last,) = self.db.execute("SELECT COALESCE(MAX(n), 0) FROM journal_rounds WHERE space_id=?",
                                  (space_id,)).fetchone()
        n = int(last) + 1
        data = {"n": n, "started": time.time(), "ended": None, "script": None, "status": "running",
                "error": None}
        self.db.execute("INSERT INTO journal_rounds(space_id, n, token, data) VALUES (?, ?, ?, ?)",
                        (space_id, n, token, orjson.dumps(data)))
        self.db.execute(
            "DELETE FROM journal_actions WHERE space_id=? AND n IN (SELECT n FROM journal_rounds WHERE space_id=?"
            " ORDER BY n DESC LIMIT -1 OFFSET ?)", (space_id, space_id, MAX_ROUNDS))
        self.db.execute(
            "DELETE FROM journal_rounds WHERE space_id=? AND n IN (SELECT n FROM journal_rounds WHERE space_id=?"
            " ORDER BY n DESC LIMIT -1 OFFSET ?)", (space_id, space_id, MAX_ROUNDS))
        return n

    def add_action(self, space_id: int, token: str, record: dict[str, Any], secret: str | None = None) -> int | None:
        """Append one action to the round of ``token``; its number (None if not kept). ``secret``:
        a literal password the action typed, kept in memory only to take it out of the round's script."""
        with contextlib.suppress(sqlite3.Error):  # the journal never fails the action it records
            n = self._round_of(space_id, token)
            if secret:
                bucket = self._redact.setdefault((space_id, token), set())
                bucket.add(secret)
                while len(self._redact) > 256:
                    self._redact.pop(next(iter(self._redact)))
            (count, seq) = self.db.execute(
                "SELECT COUNT(*), COALESCE(MAX(seq), 0) FROM journal_actions WHERE space_id=? AND n=?",
                (space_id, n)).fetchone()
            if count >= MAX_ACTIONS:
                return None
            (top,) = self.db.execute("SELECT COALESCE(MAX(seq), 0) FROM journal_actions WHERE space_id=?",
                                     (space_id,)).fetchone()
            record = {"seq": int(top) + 1, "round": n, **record}
            self.db.execute("INSERT INTO journal_actions(space_id, seq, n, data) VALUES (?, ?, ?, ?)",
                            (space_id, int(top) + 1, n, orjson.dumps(record)))
            return int(top) + 1
        return None

    def end_round(self, space_id: int, token: str, *, script: str | None, status: str,
                  error: str | None, started: float | None) -> None:
        """The round ``token`` ended: its script (passwords taken out), status and error."""
        with contextlib.suppress(sqlite3.Error):
            n = self._round_of(space_id, token)
            row = self.db.execute("SELECT data FROM journal_rounds WHERE space_id=? AND n=?",
                                  (space_id, n)).fetchone()
            data = orjson.loads(row[0])
            text = script[:MAX_SCRIPT] if isinstance(script, str) else None
            for secret in sorted(self._redact.pop((space_id, token), set()), key=len, reverse=True):
                if text is not None and secret:
                    for quote in ('"', "'"):  # the usual spelling: a literal
                        text = text.replace(f"{quote}{secret}{quote}", f'"{PASSWORD}"')
                    if len(secret) >= 4:  # anywhere else too, unless so short it would garble the script
                        text = text.replace(secret, PASSWORD)
            if started and started < data["started"]:
                data["started"] = started
            data.update(script=text, status=status, error=error, ended=time.time())
            self.db.execute("UPDATE journal_rounds SET data=? WHERE space_id=? AND n=?",
                            (orjson.dumps(data), space_id, n))

    def keep(self, space_id: int) -> None:
        """A tool was learned from this space: its journal outlives the space."""
        with contextlib.suppress(sqlite3.Error):
            self.db.execute("INSERT OR REPLACE INTO journal_kept(space_id, at) VALUES (?, ?)", (space_id, time.time()))
            old = [r[0] for r in self.db.execute("SELECT space_id FROM journal_kept ORDER BY at DESC LIMIT -1 OFFSET ?",
                                                 (MAX_KEPT_SPACES,))]
            for sid in old:
                self.forget(sid, force=True)

    def kept(self, space_id: int) -> bool:
        with contextlib.suppress(sqlite3.Error):
            return self.db.execute("SELECT 1 FROM journal_kept WHERE space_id=?", (space_id,)).fetchone() is not None
        return False

    def forget(self, space_id: int, *, force: bool = False) -> None:
        """Drop the space's journal (a finished space), unless it is kept."""
        with contextlib.suppress(sqlite3.Error):
            if not force and self.db.execute("SELECT 1 FROM journal_kept WHERE space_id=?", (space_id,)).fetchone():
                return
            for table in ("journal_actions", "journal_rounds", "journal_kept"):
                self.db.execute(f"DELETE FROM {table} WHERE space_id=?", (space_id,))  # noqa: S608 - fixed names
            for key in [k for k in self._redact if k[0] == space_id]:
                self._redact.pop(key, None)

    # -- reading ------------------------------------------------------------------------------

    def read(self, space_id: int, rounds: list[int] | None = None) -> dict[str, Any]:
        """``{format, space_id, caps, rounds: [{n, ..., actions: [...]}]}``, oldest round first."""
        out: list[dict[str, Any]] = []
        by_n: dict[int, dict[str, Any]] = {}
        for n, data in self.db.execute("SELECT n, data FROM journal_rounds WHERE space_id=? ORDER BY n", (space_id,)):
            if rounds is not None and n not in rounds:
                continue
            record = {**orjson.loads(data), "actions": []}
            by_n[n] = record
            out.append(record)
        for n, data in self.db.execute("SELECT n, data FROM journal_actions WHERE space_id=? ORDER BY seq",
                                       (space_id,)):
            if n in by_n:
                by_n[n]["actions"].append(orjson.loads(data))
        return {"format": FORMAT, "space_id": space_id, "rounds": out,
                "caps": {"rounds": MAX_ROUNDS, "actions_per_round": MAX_ACTIONS, "script_chars": MAX_SCRIPT,
                         "value_chars": MAX_VALUE}}
