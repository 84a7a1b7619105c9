"""Keys seen together are one person, for good: the store's links between a person's keys, and their merging.

A row a release reads has several keys (:func:`dpcore.ledger.keys.row_keys`): its primary key, the contents of its
row as found in its upload, and keys of earlier ledger versions. ``person_keys`` maps every key ever linked to one
*root* (the ``persons`` row that holds the history), flat: a merge re-points every key of the absorbed roots. Before
a charge, :func:`resolve` finds each primary's root; when one release shows that keys of two roots belong to one
person (a row with both), the roots merge: the survivor's history becomes the composition of *every* release either
had (the union, never a double count of a release both had), so a person's spend is that of every release on any
of their keys.

**Across uploads** a content links only when the upload is recognised as the same people as an earlier one: at
least :data:`~dpcore.core.persons.RECOGNITION_SHARE` of the smaller of the two is the same content (a re-export, a
subset, a union with it). Rows of unrelated cohorts that coincide are not merged (``docs/ledger.md`` has the
measured collision rates); a merge is always sound — it charges the merged record for every release of any of
them — it only costs budget.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dpcore.ledger.keys import content_key
from dpcore.core.persons import RECOGNITION_SHARE


@dataclass
class Resolution:
    """Where each primary key of a release lands: ``roots`` (primary → root), the merges it makes (survivor →
    the other roots it absorbs), the recognised uploads' extra keys (primary, key)."""

    roots: dict[str, str]
    merges: dict[str, list[str]] = field(default_factory=dict)
    extra: list[tuple[str, str]] = field(default_factory=list)


class _Components:
    """Union–find over primaries and roots (only over the few that need it)."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def find(self, node: str) -> str:
        self.parent.setdefault(node, node)
        while self.parent[node] != node:
            self.parent[node] = self.parent[self.parent[node]]
            node = self.parent[node]
        return node

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def recognised_keys(store, conn, holding) -> list[tuple[str, str]]:
    """The content keys of earlier uploads this one is recognised as (primary, key): for each earlier origin one
    of whose kinds of content (0 whole rows, 1 rows without the person column) shares at least
    :data:`RECOGNITION_SHARE` of the smaller side's distinct contents with one kind of this upload's.

    Rows without their person column on *both* sides (kind 1 against kind 1) never recognise: both files name
    their persons by ids, and ids that differ say the rows are other people however alike the rest is (an
    unrelated cohort with the same times and events). A file of the same people keyed by another column still
    matches whole row against whole row."""
    if not holding.upload:
        return []
    store._bulk(conn, "incoming_contents", ("person", "content", "kind"), holding.contents)
    store._bulk(conn, "upload_contents", ("content", "kind"), holding.upload)
    shared = store._run(conn, "SELECT o.origin, o.kind, i.kind, COUNT(*) FROM content_origins o JOIN upload_contents "
                              "i ON i.content = o.content WHERE o.owner = ? AND o.origin <> ? AND o.kind + i.kind < 2 "
                              "GROUP BY o.origin, o.kind, i.kind", (holding.scope, holding.origin))
    if not shared:
        return []
    origins = sorted({o for o, *_ in shared})
    sizes = {(o, k): int(n) for o, k, n in store._run(
        conn, f"SELECT origin, kind, COUNT(*) FROM content_origins WHERE owner = ? AND origin IN "
              f"({', '.join('?' * len(origins))}) GROUP BY origin, kind", (holding.scope, *origins))}
    mine: dict[int, int] = {}
    for _, kind in holding.upload:
        mine[kind] = mine.get(kind, 0) + 1
    chosen = sorted({(o, int(theirs), int(ours)) for o, theirs, ours, n in shared
                     if n >= RECOGNITION_SHARE * min(mine[int(ours)], sizes[o, theirs])})
    if not chosen:
        return []
    store._bulk(conn, "recognised", ("origin", "kind", "ours"), chosen)
    rows = store._run(conn, "SELECT DISTINCT i.person, o.origin, i.content FROM incoming_contents i JOIN content_origins "
                            "o ON o.content = i.content AND o.owner = ? JOIN recognised r ON r.origin = o.origin "
                            "AND r.kind = o.kind AND r.ours = i.kind", (holding.scope,))
    return [(person, content_key(origin, content)) for person, origin, content in rows]


def resolve(store, conn, holding) -> Resolution:
    """Each primary key's root, the merges a charge makes, and the recognised keys (nothing written)."""
    primaries = holding.read()
    extra = recognised_keys(store, conn, holding)
    keys = {(p, p, 1) for p in primaries} | {(p, k, 1) for p, k in (*holding.links, *extra)}
    keys |= {(p, k, 0) for p, k in holding.lookups if (p, k, 1) not in keys}
    store._bulk(conn, "incoming_keys", ("person", "key", "creates"), sorted(keys))
    known = store._run(conn, "SELECT DISTINCT i.person, k.person FROM incoming_keys i JOIN person_keys k "
                             "ON k.owner = ? AND k.key = i.key", (holding.scope,))
    shared = store._run(conn, "SELECT key, person FROM incoming_keys WHERE creates = 1 AND key IN (SELECT key FROM "
                              "incoming_keys WHERE creates = 1 GROUP BY key HAVING COUNT(DISTINCT person) > 1)")
    roots: dict[str, set[str]] = {}
    for primary, root in known:
        roots.setdefault(primary, set()).add(root)
    components = _Components()
    for primary, found in roots.items():
        if len(found) > 1:
            for root in found:
                components.union(primary, "root\x00" + root)
    first: dict[str, str] = {}
    for key, primary in shared:
        components.union(first.setdefault(key, primary), primary)
    for primary in list(components.parent):
        if not primary.startswith("root\x00"):
            for root in roots.get(primary, ()):
                components.union(primary, "root\x00" + root)
    members: dict[str, list[str]] = {}
    for node in list(components.parent):
        members.setdefault(components.find(node), []).append(node)
    result = Resolution({p: next(iter(r)) for p, r in roots.items() if len(r) == 1}, extra=extra)
    for group in members.values():
        existing = sorted(n.removeprefix("root\x00") for n in group if n.startswith("root\x00"))
        survivor = existing[0] if existing else min(group)
        if len(existing) > 1:
            result.merges[survivor] = existing[1:]
        for node in group:
            if not node.startswith("root\x00"):
                result.roots[node] = survivor
    for primary in primaries:
        result.roots.setdefault(primary, primary)
    return result


def merged_histories(store, conn, scope: str, merges: dict[str, list[str]]) -> dict[str, tuple]:
    """For each survivor, the merged history's rows to write: the union of the releases of every absorbed root's
    history (and any schema-2 spend they carried, as one (ε, δ) event each)."""
    plans = {}
    for survivor, others in merges.items():
        roots = [survivor, *others]
        histories = store._run(conn, f"SELECT p.person, p.class, c.history, h.epsilon, h.delta, h.legacy FROM persons "
                                     "p JOIN classes c ON c.id = p.class JOIN histories h ON h.id = c.history "
                                     f"WHERE p.owner = ? AND p.person IN ({', '.join('?' * len(roots))})",
                               (scope, *roots))
        releases: set[int] = set()
        carried = []
        legacy: set[str] = set()
        for _, _, history, eps, delta, included in histories:
            chain_ids = [r for (r,) in store._run(
                conn, "WITH RECURSIVE walk (id, parent, release_id) AS (SELECT id, parent, release_id FROM histories "
                "WHERE id = ? UNION ALL SELECT h.id, h.parent, h.release_id FROM histories h JOIN walk w "
                "ON h.id = w.parent) SELECT release_id FROM walk", (history,))]
            own = store._run(conn, f"SELECT COALESCE(SUM(epsilon), 0), COALESCE(SUM(delta), 0) FROM releases "
                                   f"WHERE id IN ({', '.join('?' * len(chain_ids))})", tuple(chain_ids))
            own_eps, own_delta = own[0] if chain_ids else (0.0, 0.0)
            if eps - own_eps > 1e-12 or delta - own_delta > 1e-15:  # schema 2's total, carried over
                carried.append((eps - own_eps, max(delta - own_delta, 0.0)))
            releases.update(chain_ids)
            legacy.update(filter(None, included.split(",")))
        plans[survivor] = (sorted(releases), carried, ",".join(sorted(legacy)),
                           [(person, cls) for person, cls, *_ in histories])
    return plans


def release_events(store, conn, ids: list[int]) -> dict[int, tuple[float, float, list]]:
    """Each release's (ε, δ) and privacy events (an (ε, δ) event where it recorded none)."""
    if not ids:
        return {}
    rows = store._run(conn, f"SELECT id, epsilon, delta, events FROM releases WHERE id IN ({', '.join('?' * len(ids))})",
                      tuple(ids))
    return {i: (e, d, json.loads(ev) if ev else [{"kind": "approx_dp", "epsilon": e, "delta": d}])
            for i, e, d, ev in rows}


def merge(store, conn, scope: str, survivor: str, releases: list[int], carried: list[tuple[float, float]],
          legacy: str, members: list[tuple[str, int]]) -> None:
    """One person from several roots: a history of the union of their releases, the survivor in a class of
    its own (with every data set the merged classes belonged to), the others' keys pointing to it."""
    events = release_events(store, conn, releases)
    eps = sum(e for e, _ in carried)
    delta = sum(d for _, d in carried)
    chained = [{"kind": "approx_dp", "epsilon": e, "delta": d} for e, d in carried]
    history = 0
    for count, release in enumerate(releases, start=1):
        r_eps, r_delta, r_events = events[release]
        eps, delta, chained = eps + r_eps, delta + r_delta, chained + r_events
        ((history,),) = store._run(
            conn, "INSERT INTO histories (owner, parent, release_id, epsilon, delta, releases, legacy, events) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (scope, history, release, eps, delta, count, legacy, json.dumps(chained, sort_keys=True)))
    ((target,),) = store._run(conn, "INSERT INTO classes (owner, history, size) VALUES (?, ?, 1) RETURNING id",
                             (scope, history))
    for person, cls in members:
        store._run(conn, "UPDATE classes SET size = size - 1 WHERE id = ?", (cls,))
        store._run(conn, "INSERT INTO dataset_classes (dataset, class) SELECT dataset, ? FROM dataset_classes "
                        "WHERE class = ? ON CONFLICT DO NOTHING", (target, cls))
        if person == survivor:
            store._run(conn, "UPDATE persons SET class = ? WHERE owner = ? AND person = ?", (target, scope, person))
        else:
            store._run(conn, "DELETE FROM persons WHERE owner = ? AND person = ?", (scope, person))
            store._run(conn, "UPDATE person_keys SET person = ? WHERE owner = ? AND person = ?",
                      (survivor, scope, person))
