"""?fieldValidation=Strict|Warn|Ignore on the REST API, judged by cluster.apiserver.fieldvalidation.

Strict (kubectl's default) answers 400; Warn (the server's default) adds a Warning header per
problem; under every mode the unknown fields are dropped before storing, as the real API server
does.
"""

from __future__ import annotations

from django.http import HttpRequest

from cluster.apiserver import fieldvalidation
from cluster.apiserver.errors import bad_request


def check(
    request: HttpRequest,
    kind: str,
    version: str,
    obj: object,
    patch: bool = False,
    duplicates: list[str] | None = None,
) -> list[str]:
    """Drop unknown fields from `obj`; 400 under Strict; returns Warning header values under Warn.
    `duplicates`: the paths of fields the JSON body gave twice."""
    mode = request.GET.get("fieldValidation", "Warn")
    found = fieldvalidation.json_duplicates(duplicates or [])
    try:
        texts = fieldvalidation.judge(kind, version, obj, found, mode)
    except fieldvalidation.StrictDecodingError as err:
        if patch:  # a patch's strict error names no kind (upstream's patcher words it so)
            raise bad_request("strict decoding error: " + fieldvalidation.describe(err.problems)) from None
        raise
    return ['299 - "{}"'.format(text.replace("\\", "\\\\").replace('"', '\\"')) for text in texts]
