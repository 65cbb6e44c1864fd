"""Print a meta.k8s.io/v1 Table the way kubectl's human-readable printer does.

The Table itself (columns, cells, -o wide priorities) comes from `cluster.kubeapi.tables`, the
same code real kubectl gets over the wire; this module is only kubectl's client-side layout:
upper-case headers and Go's tabwriter with padding 3.
"""

from __future__ import annotations

import yaml

PADDING = 3


def tabwrite(rows: list[list[str]]) -> str:
    """Go's text/tabwriter (minwidth 0, padding 3, ' '): every cell but a line's last is padded."""
    if not rows:
        return ""
    widths: dict[int, int] = {}
    for row in rows:
        for index, cell in enumerate(row[:-1]):
            widths[index] = max(widths.get(index, 0), len(cell))
    lines = []
    for row in rows:
        cells = [cell.ljust(widths[index] + PADDING) for index, cell in enumerate(row[:-1])]
        lines.append("".join(cells) + (row[-1] if row else ""))
    return "\n".join(lines) + "\n"


def cell_text(cell: object) -> str:
    if cell is None:
        return "<none>"
    if isinstance(cell, bool):
        return "true" if cell else "false"
    text = str(cell)
    # kubectl truncates a cell at its first line break.
    for stop in ("\n", "\r", "\f"):
        if stop in text:
            text = text.split(stop, 1)[0] + "..."
    return text


def labels_text(labels: dict | None) -> str:
    if not labels:
        return "<none>"
    return ",".join(f"{key}={value}" for key, value in sorted(labels.items()))


def table_rows(
    table: dict,
    *,
    wide: bool = False,
    show_labels: bool = False,
    with_namespace: bool = False,
    kind_prefix: str = "",
    headers: bool = True,
) -> list[list[str]]:
    columns = table.get("columnDefinitions", [])
    shown = [i for i, col in enumerate(columns) if wide or col.get("priority", 0) == 0]
    name_index = next((i for i, col in enumerate(columns) if col.get("format") == "name"), 0)
    rows: list[list[str]] = []
    if headers:
        header = [columns[i]["name"].upper() for i in shown]
        if with_namespace:
            header.insert(0, "NAMESPACE")
        if show_labels:
            header.append("LABELS")
        rows.append(header)
    for row in table.get("rows", []):
        cells = row.get("cells", [])
        metadata = (row.get("object") or {}).get("metadata", {})
        line = []
        for i in shown:
            text = cell_text(cells[i] if i < len(cells) else None)
            if i == name_index and kind_prefix:
                text = f"{kind_prefix}/{text}"
            line.append(text)
        if with_namespace:
            line.insert(0, metadata.get("namespace", ""))
        if show_labels:
            line.append(labels_text(metadata.get("labels")))
        rows.append(line)
    return rows


class _GoYaml(yaml.SafeDumper):
    """The YAML kubectl prints (sigs.k8s.io/yaml over go-yaml): a string that would read as another
    type is double-quoted ("10", "true"), a multi-line one is a literal block, lines never wrap."""

    def represent_str(self, data: str) -> yaml.ScalarNode:
        style = None
        if "\n" in data:
            style = "|"
        elif self.resolve(yaml.ScalarNode, data, (True, False)) != "tag:yaml.org,2002:str":
            style = '"'
        return self.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_GoYaml.add_representer(str, _GoYaml.represent_str)


def go_yaml(obj: object) -> str:
    """`kubectl -o yaml`: keys sorted, as the JSON-to-YAML conversion leaves them."""
    return yaml.dump(
        obj, Dumper=_GoYaml, sort_keys=True, allow_unicode=True, default_flow_style=False, width=1 << 30
    )


def without_managed_fields(obj: dict) -> dict:
    """An object (or a List of them) as kubectl prints it without --show-managed-fields."""
    if isinstance(obj.get("items"), list):
        return {**obj, "items": [without_managed_fields(item) for item in obj["items"]]}
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or "managedFields" not in meta:
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
