"""The durable privacy ledger's stores: SQLite (embedded default) or PostgreSQL, one versioned schema.

The server's configuration (where the ledger lives, its secret, caps) is in :mod:`dpcore.ledger.config`.

Every statement runs on its own short connection: sessions never queue behind one shared connection,
and each charge is one transaction — SQLite ``BEGIN IMMEDIATE`` (the database's write lock), PostgreSQL an advisory
lock per custodian scope — so concurrent charges from any number of sessions and processes serialise per scope and
never take a person past a cap.

Per-person spend lives in four tables (schema version 3): ``persons`` (scope, keyed digest, class), ``classes``
(persons that every release so far read together: their history and size), ``histories`` (a chain: parent,
release, the composed total, how many releases) and ``dataset_classes`` (which classes a data set's releases read).
A charge stages the persons it reads in a temporary table (SQLite ``executemany``, PostgreSQL ``COPY``), counts them
per class in one indexed join and checks one total per distinct history. A class read whole moves to its new history
by one row; only a class read in part splits, and only then are its read persons' rows rewritten. So a release that
reads again the people of an earlier one writes a handful of rows, and nothing per person is held in Python beyond
the digests.
"""

from __future__ import annotations

import abc
import contextlib
import json
import secrets
import sqlite3
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

from dpcore.ledger import links
from dpcore.ledger.records import CHARGED, Budget, DatasetRow, ReleaseRecord, Spend, Standing, chain, compose, utc_now
from dpcore.ledger.schema import MIGRATIONS

SCHEMA_VERSION = len(MIGRATIONS)

_RECORD_COLUMNS = ("id, dataset, method, epsilon, delta, parts, params, relation, time, page, session, status, actor,"
                   " via, persons, events, source, settings")


class SQLStore(abc.ABC):
    """The SQL shared by SQLite and PostgreSQL; a dialect supplies connections, bulk staging and the locking."""

    real = "REAL"
    identity = "INTEGER PRIMARY KEY AUTOINCREMENT"
    norowid = ""

    # -- dialect -----------------------------------------------------------
    @abc.abstractmethod
    def _connect(self, *, write: bool):
        """A new connection (autocommit for reads)."""

    @abc.abstractmethod
    def _begin(self, conn) -> None:
        """Start a write transaction."""

    @abc.abstractmethod
    def _bulk(self, conn, table: str, columns: tuple[str, ...], rows) -> None:
        """Create the connection's temporary table ``table`` of text ``columns`` (``creates``, ``kind``, ``ours``: integers) and fill
        it with ``rows``."""

    def _stage(self, conn, persons) -> None:
        """Fill the connection's temporary table ``incoming (person)`` with these distinct digests."""
        self._bulk(conn, "incoming", ("person",), [(p,) for p in persons])

    def _lock_scope(self, conn, scope: str) -> None:
        """Serialise one owner's charges and cap changes (SQLite: BEGIN IMMEDIATE already holds the database)."""

    def _sql(self, statement: str) -> str:
        return statement

    # -- plumbing ----------------------------------------------------------
    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        conn = self._connect(write=True)
        try:
            self._begin(conn)
            try:
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.commit()
        finally:
            conn.close()

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Any]:
        conn = self._connect(write=False)
        try:
            yield conn
        finally:
            conn.close()

    def _run(self, conn, statement: str, params: tuple = ()) -> list[tuple]:
        cursor = conn.execute(self._sql(statement), params)
        return cursor.fetchall() if cursor.description else []

    def _read(self, statement: str, params: tuple = ()) -> list[tuple]:
        with self._reading() as conn:
            return self._run(conn, statement, params)

    def migrate(self) -> None:
        """Create the schema, or bring an older one up to :data:`SCHEMA_VERSION`, in one transaction."""
        with self._transaction() as conn:
            self._lock_schema(conn)
            self._run(conn, "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            rows = self._run(conn, "SELECT version FROM schema_version")
            version = rows[0][0] if rows else 0
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"the ledger's schema is version {version}; this dpcore knows up to "
                                   f"{SCHEMA_VERSION} (upgrade dpcore)")
            for steps in MIGRATIONS[version:]:
                for statement in steps:
                    self._run(conn, statement.format(real=self.real, id=self.identity, norowid=self.norowid))
            if not rows:
                self._run(conn, "INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                self._run(conn, "UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def _lock_schema(self, conn) -> None:
        """Serialise first starts (SQLite: BEGIN IMMEDIATE did)."""

    def schema_version(self) -> int:
        return self._read("SELECT version FROM schema_version")[0][0]

    def _ensure(self, conn, dataset: str, scope: str, label: str, time: str) -> None:
        """The data set's row (created for ``scope``); refused if another owner holds the key."""
        self._run(conn, "INSERT INTO datasets (key, label, created, owner) VALUES (?, ?, ?, ?) "
                  "ON CONFLICT (key) DO NOTHING", (dataset, label or dataset, time, scope))
        ((owner,),) = self._run(conn, "SELECT owner FROM datasets WHERE key = ?", (dataset,))
        if owner != scope:
            raise PermissionError("no data set of yours has this key")

    @staticmethod
    def _cap(row: tuple) -> Budget | None:
        return None if row[0] is None else Budget(row[0], row[1])

    def _legacy(self, conn, holding) -> dict[str, tuple[float, float, int]]:
        """Schema-2 spend on this data set's keys (its own and earlier ones): releases recorded before per-person
        budgets (``persons = 0``, charges through shared records included), per data set of this owner."""
        found = {}
        for key in dict.fromkeys((holding.key, *holding.legacy)):
            ((eps, delta, count),) = self._run(
                conn, "SELECT COALESCE(SUM(r.epsilon), 0), COALESCE(SUM(r.delta), 0), COUNT(*) FROM releases r "
                "JOIN datasets d ON d.key = r.dataset WHERE r.dataset = ? AND d.owner = ? AND r.persons = 0",
                (key, holding.scope))
            if count:
                found[key] = (float(eps), float(delta), int(count))
        return found

    def _groups(self, conn, holding) -> list[tuple[int, int, int, Spend, frozenset[str]]]:
        """The staged persons grouped by class: (class id, its size, its history, the history's spend with any
        legacy spend carried over — for the persons read —, the legacy keys it then includes); class 0 holds the
        persons no release read yet."""
        legacy = self._legacy(conn, holding)
        counts = self._run(conn, "SELECT COALESCE(p.class, 0), COUNT(*) FROM incoming i LEFT JOIN persons p "
                                 "ON p.owner = ? AND p.person = i.person GROUP BY COALESCE(p.class, 0)",
                           (holding.scope,))
        ids = [c for c, _ in counts if c]
        rows = {c: rest for c, *rest in (self._run(
            conn, "SELECT c.id, c.size, h.id, h.epsilon, h.delta, h.releases, h.legacy, h.events FROM classes c "
            f"JOIN histories h ON h.id = c.history WHERE c.id IN ({', '.join('?' * len(ids))})",
            tuple(ids)) if ids else [])}
        groups = []
        for cls, count in sorted(counts):
            size, history, eps, delta, releases, included, events = rows.get(cls, (0, 0, 0.0, 0.0, 0, "", ""))
            included = frozenset(filter(None, included.split(",")))
            for key, (l_eps, l_delta, l_count) in legacy.items():
                if key not in included:  # schema 2's total, as one (ε, δ) event: nothing tighter is known of it
                    eps, delta, releases = eps + l_eps, delta + l_delta, releases + l_count
                    events = chain(events, json.dumps([{"kind": "approx_dp", "epsilon": l_eps, "delta": l_delta}]))
            groups.append((cls, int(size), int(history),
                           Spend(float(eps), float(delta), int(count), int(releases), events),
                           included | frozenset(legacy)))
        return groups

    def _stored_cap(self, conn, dataset: str) -> Budget | None:
        rows = self._run(conn, "SELECT epsilon_cap, delta_cap FROM datasets WHERE key = ?", (dataset,))
        return self._cap(rows[0]) if rows else None

    # -- the Store protocol --------------------------------------------------
    def standing(self, holding):
        with self._reading() as conn:
            found = links.resolve(self, conn, holding)
            if not found.merges:
                self._stage_roots(conn, holding, found)
                groups = self._groups(conn, holding)
                return Standing(tuple(g for *_, g, _ in groups), self._stored_cap(conn, holding.key))
        conn = self._connect(write=True)  # persons to merge: merged as a charge would, then rolled back
        try:
            self._begin(conn)
            self._lock_scope(conn, holding.scope)
            self._stage_roots(conn, holding, links.resolve(self, conn, holding), write=True)
            groups = self._groups(conn, holding)
            return Standing(tuple(g for *_, g, _ in groups), self._stored_cap(conn, holding.key))
        finally:
            conn.rollback()
            conn.close()

    def _stage_roots(self, conn, holding, found: links.Resolution, *, write: bool = False) -> None:
        """Stage the roots of the persons ``holding`` reads as ``incoming`` (:mod:`dpcore.ledger.links`); with
        ``write``, first merge the roots its rows join, link its keys and record its contents' origin."""
        if write:
            for survivor, (releases, carried, legacy, members) in links.merged_histories(
                    self, conn, holding.scope, found.merges).items():
                links.merge(self, conn, holding.scope, survivor, releases, carried, legacy, members)
            self._bulk(conn, "final_roots", ("person", "root"), list(found.roots.items()))
            self._run(conn, "INSERT INTO person_keys (owner, key, person) SELECT DISTINCT ?, i.key, f.root FROM "
                            "incoming_keys i JOIN final_roots f ON f.person = i.person WHERE i.creates = 1 "
                            "ON CONFLICT (owner, key) DO NOTHING", (holding.scope,))
            if holding.upload:
                self._run(conn, "INSERT INTO content_origins (owner, content, origin, kind) SELECT ?, content, ?, "
                                "kind FROM upload_contents WHERE 1 = 1 ON CONFLICT DO NOTHING",
                          (holding.scope, holding.origin))
        self._stage(conn, sorted(set(found.roots.values())))

    def charge(self, holding, label, record, check):
        with self._transaction() as conn:
            self._lock_scope(conn, holding.scope)
            self._ensure(conn, holding.key, holding.scope, label, record.time)
            self._stage_roots(conn, holding, links.resolve(self, conn, holding), write=True)
            groups = self._groups(conn, holding)
            check(Standing(tuple(g for *_, g, _ in groups), self._stored_cap(conn, holding.key)))
            release_id = self._insert(conn, record)
            moved: dict[tuple[int, frozenset], int] = {}  # (old history, legacy included) → new history
            for cls, size, history, spend, included in groups:
                if (history, included) not in moved:
                    eps, delta = compose(spend, record.epsilon, record.delta)
                    ((moved[history, included],),) = self._run(
                        conn, "INSERT INTO histories (owner, parent, release_id, epsilon, delta, releases, legacy, "
                        "events) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                        (holding.scope, history, release_id, eps, delta, spend.releases + 1,
                         ",".join(sorted(included)), chain(spend.events, record.events)))
                self._move(conn, holding, cls, size, spend.persons, moved[history, included])
        return replace(record, dataset=holding.key, id=release_id)

    def _move(self, conn, holding, cls: int, size: int, read: int, history: int) -> None:
        """Give the ``read`` staged persons of class ``cls`` (0: new persons) the new ``history``: the whole class
        by one row, else a new class for the part read; the data set's releases have read the class."""
        if cls and read == size:
            self._run(conn, "UPDATE classes SET history = ? WHERE id = ?", (history, cls))
            target = cls
        else:
            ((target,),) = self._run(conn, "INSERT INTO classes (owner, history, size) VALUES (?, ?, ?) RETURNING id",
                                     (holding.scope, history, read))
            if cls:
                self._run(conn, "UPDATE classes SET size = size - ? WHERE id = ?", (read, cls))
                self._run(conn, "UPDATE persons SET class = ? WHERE owner = ? AND class = ? "
                                "AND person IN (SELECT person FROM incoming)", (target, holding.scope, cls))
                self._run(conn, "INSERT INTO dataset_classes (dataset, class) SELECT dataset, ? FROM dataset_classes "
                                "WHERE class = ?", (target, cls))  # its persons were members where the class was
            else:
                self._run(conn, "INSERT INTO persons (owner, person, class) SELECT ?, i.person, ? FROM incoming i "
                                "LEFT JOIN persons p ON p.owner = ? AND p.person = i.person WHERE p.person IS NULL",
                          (holding.scope, target, holding.scope))
        self._run(conn, "INSERT INTO dataset_classes (dataset, class) VALUES (?, ?) ON CONFLICT DO NOTHING",
                  (holding.key, target))

    def _insert(self, conn, record) -> int:
        ((record_id,),) = self._run(
            conn,
            f"INSERT INTO releases ({_RECORD_COLUMNS.removeprefix('id, ')}, release_json) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '') RETURNING id",
            (record.dataset, record.method, record.epsilon, record.delta, json.dumps(record.parts),
             json.dumps(record.params, default=str), record.relation, record.time, record.page, record.session,
             CHARGED, record.actor, record.via, record.persons, record.events, record.source,
             record.settings),
        )
        return record_id

    def set_cap(self, dataset, scope, label, cap, actor, check):
        with self._transaction() as conn:
            time = utc_now()
            self._lock_scope(conn, scope)
            self._ensure(conn, dataset, scope, label, time)
            check(self._person_spend(conn, None, dataset))
            self._run(conn, "UPDATE datasets SET epsilon_cap = ?, delta_cap = ? WHERE key = ?",
                      (cap.epsilon, cap.delta, dataset))
            self._run(conn, "INSERT INTO cap_changes (dataset, actor, epsilon, delta, time) VALUES (?, ?, ?, ?, ?)",
                      (dataset, actor, cap.epsilon, cap.delta, time))

    def _person_spend(self, conn, scopes, dataset) -> list[Spend]:
        owned, params = self._owned(scopes, "c.owner")
        if dataset is None:
            rows = self._run(conn, "SELECT h.epsilon, h.delta, SUM(c.size), h.releases, h.events FROM classes c "
                             f"JOIN histories h ON h.id = c.history WHERE c.size > 0{owned} "
                             "GROUP BY h.id, h.epsilon, h.delta, h.releases, h.events ORDER BY h.epsilon", params)
        else:
            rows = self._run(conn, "SELECT h.epsilon, h.delta, SUM(c.size), h.releases, h.events FROM dataset_classes m "
                             "JOIN classes c ON c.id = m.class JOIN histories h ON h.id = c.history "
                             f"WHERE m.dataset = ? AND c.size > 0{owned} "
                             "GROUP BY h.id, h.epsilon, h.delta, h.releases, h.events ORDER BY h.epsilon",
                             (dataset, *params))
            owned, params = self._owned(scopes, "d.owner")
            ((eps, delta, count),) = self._run(
                conn, "SELECT COALESCE(SUM(r.epsilon), 0), COALESCE(SUM(r.delta), 0), COUNT(*) FROM releases r "
                f"JOIN datasets d ON d.key = r.dataset WHERE r.dataset = ? AND r.persons = 0{owned}",
                (dataset, *params))
            if count:  # schema 2: the data set's own total, until a release carries it over to its persons
                rows.append((eps, delta, 0, count, json.dumps([{"kind": "approx_dp", "epsilon": float(eps),
                                                                 "delta": float(delta)}])))
        return [Spend(float(e), float(d), int(n), int(r), events) for e, d, n, r, events in rows]

    def dataset_persons(self, dataset, scope):
        """The root digests of every person the releases on ``dataset`` (owned by ``scope``) read."""
        return [p for (p,) in self._read(
            "SELECT DISTINCT p.person FROM dataset_classes m JOIN persons p ON p.class = m.class JOIN datasets d "
            "ON d.key = m.dataset WHERE m.dataset = ? AND d.owner = ? AND p.owner = ? ORDER BY p.person",
            (dataset, scope, scope))]

    def version(self):
        ((releases, caps),) = self._read("SELECT (SELECT COALESCE(MAX(id), 0) FROM releases), "
                                         "(SELECT COALESCE(MAX(id), 0) FROM cap_changes)")
        return int(releases), int(caps)

    def person_spend(self, scopes, dataset):
        with self._reading() as conn:
            return self._person_spend(conn, scopes, dataset)

    def finish(self, record_id, status, values):
        with self._transaction() as conn:
            self._run(conn, "UPDATE releases SET status = ?, release_json = ? WHERE id = ? OR via = ?",
                      (status, values, record_id, record_id))

    def label(self, dataset, scope, name):
        with self._transaction() as conn:
            self._run(conn, "INSERT INTO datasets (key, label, created, owner) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT (key) DO NOTHING", (dataset, name, utc_now(), scope))

    @staticmethod
    def _owned(scopes, column: str) -> tuple[str, tuple]:
        if scopes is None:
            return "", ()
        if not scopes:
            return " AND 1 = 0", ()
        return f" AND {column} IN ({', '.join('?' * len(scopes))})", tuple(scopes)

    def datasets(self, scopes):
        owned, params = self._owned(scopes, "owner")
        rows = self._read("SELECT key, label, epsilon_cap, delta_cap, owner FROM datasets WHERE (epsilon_cap IS NOT "
                          f"NULL OR key IN (SELECT dataset FROM releases)){owned} ORDER BY created, key", params)
        return [DatasetRow(key, label, self._cap((eps, delta)), owner) for key, label, eps, delta, owner in rows]

    def records(self, dataset, scopes, with_values):
        columns = ", ".join(f"r.{c.strip()}" for c in _RECORD_COLUMNS.split(",")) + (
            ", r.release_json" if with_values else "")
        owned, params = self._owned(scopes, "d.owner")
        where, chosen = (" AND r.dataset = ?", (dataset,)) if dataset is not None else ("", ())
        rows = self._read(f"SELECT {columns} FROM releases r JOIN datasets d ON d.key = r.dataset "
                          f"WHERE 1 = 1{where}{owned} ORDER BY r.id", chosen + params)
        return [
            ReleaseRecord(id=row[0], dataset=row[1], method=row[2], epsilon=row[3], delta=row[4],
                          parts=json.loads(row[5]), params=json.loads(row[6]), relation=row[7], time=row[8],
                          page=row[9], session=row[10], status=row[11], actor=row[12], via=row[13],
                          persons=row[14], events=row[15], source=row[16], settings=row[17],
                          values=row[18] if with_values else "")
            for row in rows
        ]

    def cap_changes(self, dataset):
        rows = self._read("SELECT actor, epsilon, delta, time FROM cap_changes WHERE dataset = ? ORDER BY id",
                          (dataset,))
        return [{"dataset": dataset, "actor": a, "epsilon": e, "delta": d, "time": t} for a, e, d, t in rows]

    def grant(self, owner, reviewer, actor, time):
        with self._transaction() as conn:
            self._run(conn, "INSERT INTO review_grants (owner, reviewer, actor, time) VALUES (?, ?, ?, ?) "
                      "ON CONFLICT DO NOTHING", (owner, reviewer, actor, time))

    def grants(self):
        return [(o, r) for o, r in self._read("SELECT owner, reviewer FROM review_grants ORDER BY owner, reviewer")]

    def add_audit(self, subject, summary, time):
        with self._transaction() as conn:
            self._run(conn, "INSERT INTO audits (subject, summary, time) VALUES (?, ?, ?)", (subject, summary, time))

    def audits(self):
        rows = self._read("SELECT id, subject, summary, time FROM audits ORDER BY id")
        return [{"id": i, "subject": s, "summary": json.loads(summary), "time": t} for i, s, summary, t in rows]


def _columns(columns: tuple[str, ...]) -> str:
    return ", ".join(f"{c} INTEGER" if c in ("creates", "kind", "ours") else f"{c} TEXT" for c in columns)


class SQLiteStore(SQLStore):
    """One file in WAL mode; every charge is a ``BEGIN IMMEDIATE`` transaction (one writer at a time)."""

    norowid = " WITHOUT ROWID"

    def __init__(self, path: Path | str, *, busy_timeout: float = 60.0, uri: bool = False) -> None:
        self.path = path if uri else Path(path)
        self.busy_timeout = busy_timeout
        self._uri = uri
        conn = self._connect(write=True)
        try:
            conn.execute("PRAGMA journal_mode = WAL")
        finally:
            conn.close()

    def _connect(self, *, write: bool):
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, uri=self._uri)
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA synchronous = FULL")  # a committed charge survives a crash of the machine too
        conn.execute("PRAGMA temp_store = MEMORY")
        return conn

    def _begin(self, conn) -> None:
        conn.execute("BEGIN IMMEDIATE")

    def _bulk(self, conn, table, columns, rows):
        conn.execute(f"CREATE TEMPORARY TABLE {table} ({_columns(columns)})")
        conn.executemany(f"INSERT INTO {table} VALUES ({', '.join('?' * len(columns))})", rows)
        if table == "incoming_keys":
            conn.execute("CREATE INDEX incoming_keys_by_key ON incoming_keys (key)")

    def integrity(self) -> str:
        """SQLite's own check of the file (``"ok"`` when sound)."""
        return self._read("PRAGMA integrity_check")[0][0]


class PostgresStore(SQLStore):
    """PostgreSQL through psycopg 3; a charge holds its custodian scope's advisory lock until it commits."""

    real = "DOUBLE PRECISION"
    identity = "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    _SCHEMA_LOCK = 0x64700C07E  # pg_advisory_xact_lock key: one migration at a time

    def __init__(self, url: str) -> None:
        import psycopg

        self._psycopg = psycopg
        self.url = url

    def _connect(self, *, write: bool):
        return self._psycopg.connect(self.url, autocommit=not write, connect_timeout=10)

    def _begin(self, conn) -> None:
        """psycopg opens the transaction with the first statement (READ COMMITTED; the scope's advisory lock)."""

    def _bulk(self, conn, table, columns, rows):
        self._run(conn, f"CREATE TEMPORARY TABLE {table} ({_columns(columns)})")
        with conn.cursor().copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        if len(rows) > 1000:  # the planner's row estimate for a fresh temporary table is a guess
            self._run(conn, f"ANALYZE {table}")

    def _lock_schema(self, conn) -> None:
        self._run(conn, "SELECT pg_advisory_xact_lock(?)", (self._SCHEMA_LOCK,))

    def _lock_scope(self, conn, scope: str) -> None:
        self._run(conn, "SELECT pg_advisory_xact_lock(?::int, hashtext(?))", (self._SCHEMA_LOCK & 0x7FFFFFFF, scope))

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s")


class MemoryStore(SQLiteStore):
    """The store of ``Ledger()``: an SQLite database in this process's memory, gone with it (notebooks, tests).

    One lock serialises its statements: SQLite's shared in-memory cache locks tables rather than waiting."""

    def __init__(self) -> None:
        name = f"file:dpcore-ledger-{secrets.token_hex(8)}?mode=memory&cache=shared"
        self._guard = threading.RLock()
        self._anchor = sqlite3.connect(name, uri=True, check_same_thread=False)  # keeps the database alive
        super().__init__(name, uri=True)
        self.migrate()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._guard, super()._transaction() as conn:
            yield conn

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Any]:
        with self._guard, super()._reading() as conn:
            yield conn
