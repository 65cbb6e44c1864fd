"""Go's text/tabwriter as kubectl describe configures it (minwidth 0, padding 2, padchar ' ').

Describe output is written with tabs between a label and its value; consecutive lines that have
a cell in the same column form a block aligned to the block's widest cell. Copying the algorithm
(not approximating it) is what makes `  IP:           10.244.1.5` line up exactly as kubectl's.
"""

from __future__ import annotations


def tabwrite(text: str, padding: int = 2) -> str:
    lines = [line.split("\t") for line in text.split("\n")]
    out: list[str] = []
    _format(lines, 0, len(lines), [], padding, out)
    return "\n".join(out)


def _format(
    lines: list[list[str]], line0: int, line1: int, widths: list[int], padding: int, out: list[str]
) -> None:
    column = len(widths)
    this = line0
    while this < line1:
        if column >= len(lines[this]) - 1:
            this += 1
            continue
        _write(lines, line0, this, widths, out)
        line0 = this
        width = 0
        while this < line1 and column < len(lines[this]) - 1:
            width = max(width, len(lines[this][column]) + padding)
            this += 1
        _format(lines, line0, this, [*widths, width], padding, out)
        line0 = this
    _write(lines, line0, line1, widths, out)


def _write(lines: list[list[str]], line0: int, line1: int, widths: list[int], out: list[str]) -> None:
    for cells in lines[line0:line1]:
        parts = []
        for j, cell in enumerate(cells):
            parts.append(cell.ljust(widths[j]) if j < len(widths) else cell)
        out.append("".join(parts))
