"""The shell language: quoting, variables, pipes, lists, redirections, exit, not-found messages."""

from __future__ import annotations

import pytest

from cluster.shell.lexer import ShellSyntaxError
from cluster.shell.parser import parse
from tests.shell.support import context, sh

pytestmark = pytest.mark.django_db


def test_quotes_and_variables():
    assert sh("X=1; echo \"$HOSTNAME\" '$HOSTNAME' ${HOSTNAME} $NOPE. $X") == (
        0,
        "web $HOSTNAME web . 1\n",
        "",
    )
    assert sh("GREETING='hello there' printenv GREETING; echo ${GREETING:-unset}") == (
        0,
        "hello there\nunset\n",
        "",
    )


def test_exit_status_and_dollar_question():
    assert sh("false; echo $?; true && echo yes || echo no; false || echo fallback") == (
        0,
        "1\nyes\nfallback\n",
        "",
    )
    assert sh("exit 3")[0] == 3
    assert sh("echo before; exit 300; echo after") == (44, "before\n", "")


def test_pipes_feed_the_next_command():
    assert sh("ls /etc/nginx | grep conf | wc -l")[1] == "2\n"
    assert sh("cat /etc/passwd | head -n 1")[1] == "root:x:0:0:root:/root:/bin/bash\n"


def test_command_substitution_and_redirections():
    ctx = context()
    assert sh(
        "echo $(hostname)-x > /tmp/out; cat /tmp/out; echo more >> /tmp/out; wc -l < /tmp/out", ctx=ctx
    )[1] == ("web-x\n2\n")
    assert sh("ls /nope 2>/dev/null; echo $?", ctx=ctx)[1] == "2\n"
    assert (
        sh("ls /nope 2>&1 | head -n 1", ctx=ctx)[1]
        == "ls: cannot access '/nope': No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("image", "shell", "message"),
    [
        ("nginx:1.25", "bash", "bash: foo: command not found\n"),
        ("nginx:1.25", "sh", "sh: 1: foo: not found\n"),  # Debian's sh is dash
        ("busybox:1.36", "sh", "sh: foo: not found\n"),
        ("alpine:3.20", "sh", "sh: foo: not found\n"),
    ],
)
def test_unknown_commands_as_each_shell_words_it(image, shell, message):
    assert sh("foo", image=image, shell=shell) == (127, "", message)


def test_syntax_errors():
    with pytest.raises(ShellSyntaxError):
        parse("echo 'open")
    status, _out, err = sh("echo 'open")
    assert status == 2 and err.startswith("bash: -c: line 1: unexpected EOF while looking for matching")
    assert sh("&& ls")[2] == "bash: -c: line 1: syntax error near unexpected token `&&'\n"


def test_globbing():
    assert sh("echo /etc/nginx/*.conf")[1] == "/etc/nginx/nginx.conf\n"
    assert sh("cd /etc/nginx && echo *")[1] == "conf.d mime.types nginx.conf\n"


def test_output_to_standard_error():
    assert sh("echo oops >&2; echo fine") == (0, "fine\n", "oops\n")
    assert sh("echo oops 1>&2")[2] == "oops\n"


def test_arithmetic_expansion():
    assert sh("N=7; echo $((N * 2 + 1)) $(( (N - 10) / 2 )) $((N % 4))")[1] == "15 -1 3\n"
    status, _out, err = sh("echo $((1 / 0))")
    assert (status, err) == (1, "bash: 1 / 0: division by 0\n")


def test_a_program_written_in_a_loop_is_found_on_the_next_turn():
    # $PATH lookups are remembered per container; a new file (or a removed one) changes the answer.
    script = (
        "for i in 1 2 3; do which hello || echo none; "
        "if [ $i = 1 ]; then echo 'echo hi' > /usr/local/bin/hello; fi; "
        "if [ $i = 2 ]; then rm /usr/local/bin/hello; fi; done"
    )
    assert sh(script, image="busybox:1.36", shell="sh") == (0, "none\n/usr/local/bin/hello\nnone\n", "")
