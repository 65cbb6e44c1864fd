"""The small Markdown of lab texts, rendered safely: everything is escaped first, then formatted.

Paragraphs, fenced code blocks, `code`, **bold**, *italic*, bullet and numbered lists, and
[links](https://...) with http(s) targets only. Raw HTML is shown as text, never run.
"""

from __future__ import annotations

import re
from html import escape

from django.utils.safestring import SafeString, mark_safe

_CODE = re.compile(r"`([^`]+)`")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*([^*\s][^*]*?)\*(?![*\w])")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)\s]+)\)")
_BULLET = re.compile(r"^\s*[-*]\s+(.*)$")
_NUMBER = re.compile(r"^\s*\d+[.)]\s+(.*)$")


def _inline(text: str) -> str:
    parts = _CODE.split(escape(text, quote=True))
    out = []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"<code>{part}</code>")
        else:
            part = _LINK.sub(r'<a href="\2" rel="noopener noreferrer" target="_blank">\1</a>', part)
            part = _BOLD.sub(r"<strong>\1</strong>", part)
            out.append(_ITALIC.sub(r"<em>\1</em>", part))
    return "".join(out)


def _flush(paragraph: list[str], out: list[str]) -> None:
    if paragraph:
        out.append(f"<p>{_inline(' '.join(line.strip() for line in paragraph))}</p>")
        paragraph.clear()


def render(text: str) -> SafeString:
    out: list[str] = []
    paragraph: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("```"):
            _flush(paragraph, out)
            i += 1
            code = []
            while i < len(lines) and not lines[i].strip().startswith("```"):
                code.append(lines[i])
                i += 1
            out.append(f"<pre><code>{escape(chr(10).join(code))}</code></pre>")
        elif _BULLET.match(line) or _NUMBER.match(line):
            _flush(paragraph, out)
            pattern, tag = (_BULLET, "ul") if _BULLET.match(line) else (_NUMBER, "ol")
            items = []
            while i < len(lines) and pattern.match(lines[i]):
                items.append(f"<li>{_inline(pattern.match(lines[i]).group(1))}</li>")
                i += 1
            out.append(f"<{tag}>{''.join(items)}</{tag}>")
            continue
        elif not line.strip():
            _flush(paragraph, out)
        else:
            paragraph.append(line)
        i += 1
    _flush(paragraph, out)
    return mark_safe("\n".join(out))  # every piece of user text above went through escape()
