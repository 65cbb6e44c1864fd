"""`test` and `[`: strings, integers and files, as the shells' builtins evaluate them."""

from __future__ import annotations

UNARY_FILES = ("-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h")
INTEGER = {"-eq": int.__eq__, "-ne": int.__ne__, "-lt": int.__lt__, "-le": int.__le__,
           "-gt": int.__gt__, "-ge": int.__ge__}  # fmt: skip


class TestError(Exception):
    """Printed after the command's name (`[: abc: integer expression expected`): status 2."""


def _integer(text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise TestError(f"{text}: integer expression expected") from None


def _file(sh, operator: str, operand: str) -> bool:
    path = sh.fs.resolve(sh.cwd, operand)
    if operator == "-d":
        return sh.fs.is_dir(path)
    if operator == "-f":
        return sh.fs.is_file(path)
    if operator == "-s":
        return sh.fs.exists(path) and sh.fs.size(path) > 0
    if operator in ("-L", "-h"):
        return bool(sh.fs.link_target(path))
    return sh.fs.exists(path)


def evaluate(sh, args: list[str]) -> bool:
    """The POSIX rules by argument count (0 to 4), with ! and -a/-o beyond."""
    if not args:
        return False
    if args[0] == "!":
        return not evaluate(sh, args[1:])
    for joiner in ("-o", "-a"):
        if joiner in args[1:-1]:
            at = args.index(joiner, 1)
            left, right = evaluate(sh, args[:at]), evaluate(sh, args[at + 1 :])
            return (left or right) if joiner == "-o" else (left and right)
    if len(args) == 1:
        return args[0] != ""
    if len(args) == 2:
        operator, operand = args
        if operator == "-z":
            return operand == ""
        if operator == "-n":
            return operand != ""
        if operator in UNARY_FILES:
            return _file(sh, operator, operand)
        raise TestError(f"{operator}: unary operator expected")
    if len(args) == 3:
        left, operator, right = args
        if operator in ("=", "=="):
            return left == right
        if operator == "!=":
            return left != right
        if operator in INTEGER:
            return INTEGER[operator](_integer(left), _integer(right))
        raise TestError(f"{operator}: binary operator expected")
    raise TestError("too many arguments")


def test(sh, argv: list[str], io) -> int:
    args = argv[1:]
    if argv[0] == "[":
        if not args or args[-1] != "]":
            io.write_err(sh.error("[: missing `]'") if sh.style == "bash" else sh.error("[: missing ]"))
            return 2
        args = args[:-1]
    try:
        return 0 if evaluate(sh, args) else 1
    except TestError as exc:
        io.write_err(sh.error(f"{argv[0]}: {exc}"))
        return 2


BUILTINS = {"test": test, "[": test}
