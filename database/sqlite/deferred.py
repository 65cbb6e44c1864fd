"""A batch transaction's appends, sent to SQLite together just before anything could see them.

In a control plane's batch (database/sqlite/memo.py: an RC's creations, the scheduler's bindings,
the kubelets' status reports) every API write moves the cluster's revision, appends its log
entry and appends its flow steps: three or four statements of their own, each prepared, bound and
stepped by itself (~50 µs apiece; a 1,000-replica scale-up ran 11,000 of them). Inside a batch on
SQLite these wait in a list on the connection instead:

- consecutive statements of the same text go as one `executemany`;
- of a cluster's revision updates only the last runs (a revision only grows, and nothing reads
  the column before the list is sent: see below);
- the list is sent before the transaction commits, and before any statement that names one of
  its tables, so every read (of the steps, the log, the cluster row) and every other write sees
  the rows in the order they were made;
- a savepoint rolled back drops what was added inside it, as SQLite drops the rows, and what
  was made before it but sent inside it waits again.

Outside a batch, while statements are logged or wrapped (DEBUG, tests counting queries), and on
PostgreSQL, every statement runs at once.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4096)
def names(query: str, table: str) -> bool:
    """`query` names `table` (a read or write the waiting rows must be in the database for)."""
    return table in query


class Deferred:
    """The appends of one connection's transaction, (query, params, table, key) in the order they
    were made; the first `sent` of them are in the database. An entry with a key is superseded
    by a later one with the same query and key.

    Each open savepoint keeps (how many entries there were, how many were sent) at its start.
    ROLLBACK TO undoes what was sent after that start, which may include entries made before it
    (sent by a read inside the savepoint): those wait again, to be sent once more."""

    __slots__ = ("entries", "marks", "sent", "tables")

    def __init__(self) -> None:
        self.entries: list[tuple[str, list, str, object]] = []
        self.sent = 0
        self.tables: set[str] = set()  # of the entries waiting
        self.marks: list[tuple[int, int]] = []  # per open savepoint, outermost first

    def add(self, query: str, params: list, table: str, key: object = None) -> None:
        self.entries.append((query, params, table, key))
        self.tables.add(table)

    def waiting(self) -> bool:
        return self.sent < len(self.entries)

    def needed_by(self, query: str) -> bool:
        return self.waiting() and any(names(query, table) for table in self.tables)

    def take(self) -> list[tuple[str, list[list]]]:
        """What waits, as (query, params list) runs of one text each; counted as sent."""
        waiting = self.entries[self.sent :]
        self.sent = len(self.entries)
        self.tables.clear()
        seen: set[tuple[str, object]] = set()
        kept = []
        for query, params, _, key in reversed(waiting):
            if key is not None:
                if (query, key) in seen:
                    continue
                seen.add((query, key))
            kept.append((query, params))
        kept.reverse()
        runs: list[tuple[str, list[list]]] = []
        for query, params in kept:
            if runs and runs[-1][0] == query:
                runs[-1][1].append(params)
            else:
                runs.append((query, [params]))
        return runs

    def savepoint(self) -> None:
        self.marks.append((len(self.entries), self.sent))

    def released(self, depth: int) -> None:
        """The savepoint at `depth` (0: outermost) and those inside it were released."""
        del self.marks[depth:]

    def rolled_back(self, depth: int) -> None:
        """ROLLBACK TO the savepoint at `depth`: it stays open, those inside it end."""
        made, sent = self.marks[depth]
        del self.entries[made:]
        self.sent = sent
        self.tables = {entry[2] for entry in self.entries[self.sent :]}
        del self.marks[depth + 1 :]

    def clear(self) -> None:
        self.entries.clear()
        self.sent = 0
        self.tables.clear()
        self.marks.clear()
