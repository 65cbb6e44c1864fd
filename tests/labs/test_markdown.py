"""Lab texts render as CommonMark (with tables), and nothing in them can run."""

from __future__ import annotations

from labs.markdown import render


def test_instructors_get_the_markdown_they_know():
    html = render(
        "## Taints\n\nRun `kubectl get nodes`, then **cordon** *node1*.\n\n"
        "| node | taint |\n|---|---|\n| master | NoSchedule |\n\n"
        "1. first\n2. second\n\n```yaml\nkind: Pod\n```\n\n[docs](https://kubernetes.io/docs/)"
    )
    assert "<h2>Taints</h2>" in html
    assert "<code>kubectl get nodes</code>" in html
    assert "<strong>cordon</strong>" in html and "<em>node1</em>" in html
    assert "<table>" in html and "<td>NoSchedule</td>" in html
    assert "<ol>\n<li>first</li>" in html
    assert '<pre><code class="language-yaml">kind: Pod\n</code></pre>' in html
    assert '<a href="https://kubernetes.io/docs/" rel="noopener noreferrer" target="_blank">docs</a>' in html


def test_script_tags_and_javascript_links_come_out_inert():
    html = render(
        "<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)>\n\n"
        "[click](javascript:alert(1)) [data](data:text/html,<b>x</b>) <javascript:alert(1)>\n\n"
        "![pic](javascript:alert(1))"
    )
    assert html == (
        "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n"
        "<p>hi &lt;img src=x onerror=alert(1)&gt;</p>\n"
        "<p>[click](javascript:alert(1)) [data](data:text/html,&lt;b&gt;x&lt;/b&gt;) "
        "&lt;javascript:alert(1)&gt;</p>\n"
        "<p>![pic](javascript:alert(1))</p>"
    )
