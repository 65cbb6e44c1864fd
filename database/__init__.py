"""KubeSim's database layer under Django's ORM: the SQLite backend with its writer gate, plain
statements on the backend's own cursor, joined lookups, and throwaway databases for commands."""
