"""Lab texts in Markdown (CommonMark plus tables, markdown-it-py), rendered safely.

Raw HTML is not passed through (`html: False`: it is shown as text), and only http(s) URLs
become links or images, so `<script>` and `javascript:` links come out inert. Links open in a new
tab without giving it a handle on the lab page (`rel="noopener noreferrer"`).
"""

from __future__ import annotations

import functools

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt


def _safe_link(url: str) -> bool:
    return url.strip().lower().startswith(("http://", "https://"))


def _link_open(renderer, tokens, idx, options, env) -> str:
    tokens[idx].attrSet("rel", "noopener noreferrer")
    tokens[idx].attrSet("target", "_blank")
    return renderer.renderToken(tokens, idx, options, env)


_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")
_MARKDOWN.validateLink = _safe_link
_MARKDOWN.add_render_rule("link_open", _link_open)


# A class's lab panels render the same few texts with every state they are sent.
@functools.lru_cache(maxsize=2048)
def _html(text: str) -> str:
    return _MARKDOWN.render(text).strip()


def render(text: str) -> SafeString:
    # Safe to mark: raw HTML is off and only http(s) URLs become links.
    return mark_safe(_html(text))
