"""`kubectl api-resources` in the web console prints what the real kubectl prints against KubeSim."""

from __future__ import annotations

import pytest

from dashboard.console import shell
from dashboard.console.parser import UsageError, parse

FORMS = [
    "",
    "-o wide",
    "-o name",
    "--namespaced=false",
    "--namespaced=true",
    "--api-group=apps",
    "--api-group=",
    "--no-headers",
]


def console(line: str) -> str:
    return shell.api_resources(None, parse(f"api-resources {line}")).output


def test_the_consoles_api_resources_is_real_kubectls_text(kubectl):
    for form in FORMS:
        assert console(form) == kubectl.ok("api-resources", *form.split()), form


def test_its_errors_are_kubectls():
    with pytest.raises(UsageError, match=r"^error: --output yaml is not available$"):
        console("-o yaml")
    with pytest.raises(UsageError, match='invalid argument "maybe" for "--namespaced" flag'):
        console("--namespaced=maybe")
