"""Writes cluster/openapi/definitions.json from upstream's OpenAPI document for the release KubeSim
follows (kube-apiserver v1.33).

Its input is `api/openapi-spec/swagger.json` of kubernetes/kubernetes at release-1.33, the
document the OpenAPI v3 files beside it are generated from (same Go comments, same types). The
official Python client v33.1.0 ships that file unchanged as `kubernetes/swagger.json.unprocessed`
in its repository (kubernetes-client/python, tag v33.1.0), which is where a copy is easiest to get:

    git -C python show v33.1.0:kubernetes/swagger.json.unprocessed > swagger.json
    python -m cluster.openapi.generate --swagger swagger.json

Only the definitions reachable from the kinds of GROUP_VERSIONS are kept, unchanged (descriptions,
types and formats, required fields, the x-kubernetes-* list, map and patch markers). Run it again
on its own output (`--swagger cluster/openapi/definitions.json`) and it writes the same file:
tests/openapi/test_definitions.py checks that.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

OUTPUT = Path(__file__).with_name("definitions.json")
RELEASE = "v1.33"

# The group-versions whose kinds (and everything they reference) the table keeps: the ones KubeSim
# serves, and the review kinds its clients send (TokenRequest, SelfSubjectAccessReview, ...).
GROUP_VERSIONS = (
    ("", "v1"),
    ("apps", "v1"),
    ("autoscaling", "v1"),
    ("autoscaling", "v2"),
    ("batch", "v1"),
    ("coordination.k8s.io", "v1"),
    ("discovery.k8s.io", "v1"),
    ("policy", "v1"),
    ("scheduling.k8s.io", "v1"),
    ("storage.k8s.io", "v1"),
    ("rbac.authorization.k8s.io", "v1"),
    ("authentication.k8s.io", "v1"),
    ("authorization.k8s.io", "v1"),
)

_REF = "#/definitions/"


def _roots(definitions: dict) -> list[str]:
    wanted = set(GROUP_VERSIONS)
    return [
        name
        for name, schema in definitions.items()
        if any(
            (g["group"], g["version"]) in wanted for g in schema.get("x-kubernetes-group-version-kind", [])
        )
    ]


def _refs(schema: object) -> list[str]:
    found: list[str] = []
    if isinstance(schema, dict):
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF):
            found.append(ref[len(_REF) :])
        for value in schema.values():
            found.extend(_refs(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_refs(value))
    return found


def select(definitions: dict) -> dict:
    """The definitions the roots reach, by name."""
    todo = _roots(definitions)
    kept: dict[str, dict] = {}
    while todo:
        name = todo.pop()
        if name in kept:
            continue
        kept[name] = definitions[name]
        todo.extend(_refs(kept[name]))
    return dict(sorted(kept.items()))


def generate(source: dict, source_sha256: str) -> dict:
    info = source.get("x-kubesim-source") or {
        "document": "kubernetes/kubernetes api/openapi-spec/swagger.json",
        "release": RELEASE,
        "copy": "kubernetes-client/python v33.1.0 kubernetes/swagger.json.unprocessed",
        "sha256": source_sha256,
    }
    return {"x-kubesim-source": info, "definitions": select(source["definitions"])}


def render(table: dict) -> str:
    return json.dumps(table, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swagger", required=True, type=Path, help="upstream's swagger.json (v1.33)")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    raw = args.swagger.read_bytes()
    text = render(generate(json.loads(raw), hashlib.sha256(raw).hexdigest()))
    args.output.write_text(text)
    print(f"wrote {args.output} ({len(text)} bytes)")


if __name__ == "__main__":
    main()
