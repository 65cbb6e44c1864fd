"""User YAML is read safely and every error says where it is."""

from __future__ import annotations

import pytest

from k8s.yamldocs import YamlError, format_path, load_documents, load_one


def test_it_reads_multiple_documents_and_remembers_field_lines():
    docs = load_documents(
        "kind: Node\nmetadata:\n  name: a\n---\nkind: Pod\nspec:\n  containers:\n  - image: x\n"
    )
    assert [d.data["kind"] for d in docs] == ["Node", "Pod"]
    assert docs[1].line == 5
    assert docs[1].line_of(("spec", "containers", 0, "image")) == 8
    assert docs[1].line_of(("spec", "containers", 0, "missing")) == 8


def test_it_drops_empty_documents():
    assert len(load_documents("---\n---\nkind: Pod\n---\n")) == 1


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("a: [1, 2\n", 2, "expected"),
        ("a: &x [1]\nb: *x\n", 2, "aliases"),
        ("a: 1\na: 2\n", 2, "duplicate key"),
        ("base: &b {x: 1}\nc:\n  <<: *b\n", 3, "aliases"),
    ],
)
def test_it_rejects_malformed_yaml_with_the_line(text, line, fragment):
    with pytest.raises(YamlError) as err:
        load_documents(text)
    assert err.value.line == line
    assert fragment in err.value.message


def test_an_alias_bomb_is_refused_before_it_expands():
    bomb = "a: &a ['x','x','x','x','x','x','x','x','x']\n"
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        bomb += (
            f"{level}: &{level} [*{previous},*{previous},*{previous},*{previous},*{previous},*{previous}]\n"
        )
    with pytest.raises(YamlError, match="aliases"):
        load_documents(bomb)


def test_format_path_uses_kubernetes_field_notation():
    assert format_path(("spec", "containers", 0, "resources", "requests", "cpu")) == (
        "spec.containers[0].resources.requests.cpu"
    )


def test_floats_are_read_as_go_yaml_reads_them():
    # go-yaml (kubectl's and kube-apiserver's YAML) takes these for floats; YAML 1.1 wants a dot.
    assert load_one("a: 1e-05\nb: 1E5\nc: +1e+16\nd: .5e3") == {"a": 1e-05, "b": 1e5, "c": 1e16, "d": 500.0}
    # Past float64 go-yaml's parse fails and the scalar stays a string; no exponent, no float.
    assert load_one("a: 1e400\nb: 1e\nc: e5") == {"a": "1e400", "b": "1e", "c": "e5"}


def test_an_integral_float_is_an_integer_as_sigs_k8s_io_yaml_makes_it_json():
    # YAML → JSON goes through Go's encoding/json, which writes float64(3) as `3`.
    read = load_one("a: 3.0\nb: 1e3\nc: -0.0\nd: 1.5\ne: 1e19")
    assert read == {"a": 3, "b": 1000, "c": 0, "d": 1.5, "e": 1e19}
    assert [type(read[k]) for k in "abcde"] == [int, int, int, float, float]  # 1e19 is past int64
