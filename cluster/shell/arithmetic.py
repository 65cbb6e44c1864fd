"""The shell's arithmetic expansion, `$((1 + 2 * X))`: integer operations on a parsed tree (never
Python's eval)."""

from __future__ import annotations

import ast
import operator

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}


class BadExpression(Exception):
    """The message is the shell's (`division by 0`, `syntax error`)."""


def _value(node: ast.AST, env: dict[str, str]) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        text = env.get(node.id, "0") or "0"
        return int(text) if text.lstrip("-").isdigit() else 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _value(node.operand, env)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, env), _value(node.right, env)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            raise BadExpression("division by 0")
        if isinstance(node.op, ast.FloorDiv):  # C division truncates toward zero
            return abs(left) // abs(right) * (1 if (left >= 0) == (right >= 0) else -1)
        return _BINARY[type(node.op)](left, right)
    raise BadExpression("syntax error in expression")


def evaluate(expression: str, env: dict[str, str]) -> int:
    text = expression.replace("/", "//").strip() or "0"
    if len(text) > 200:
        raise BadExpression("expression too long")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise BadExpression("syntax error in expression") from None
    return _value(tree.body, env)
