"""while/until, for, if, break/continue and test/[ (cluster/shell/parser.py), as the shells run them."""

from __future__ import annotations

import time

import pytest

from cluster.shell.parser import Incomplete, parse
from cluster.shell.streams import InputStream
from tests.shell.support import run, sh
from tests.shell.test_sandbox import Running

pytestmark = pytest.mark.django_db


def test_while_counts_with_arithmetic_and_test():
    script = "i=0; while [ $i -lt 3 ]; do echo tick $i; i=$((i+1)); done; echo end $i"
    assert sh(script, "busybox:1.36", "sh") == (0, "tick 0\ntick 1\ntick 2\nend 3\n", "")


def test_until_and_break_and_continue():
    script = (
        "i=0; until [ $i -ge 5 ]; do i=$((i+1)); "
        "[ $i -eq 2 ] && continue; [ $i -eq 4 ] && break; echo $i; done"
    )
    assert sh(script, "busybox:1.36", "sh")[1] == "1\n3\n"


def test_for_over_words_and_globs():
    assert sh("for f in a 'b c' d; do echo \"<$f>\"; done")[1] == "<a>\n<b c>\n<d>\n"
    assert sh("for f in /etc/nginx/*.conf; do echo $f; done")[1] == "/etc/nginx/nginx.conf\n"


def test_if_elif_else():
    script = (
        "for n in 1 2 3; do if [ $n = 1 ]; then echo one; "
        "elif [ $n = 2 ]; then echo two; else echo many; fi; done"
    )
    assert sh(script)[1] == "one\ntwo\nmany\n"
    assert sh("if false; then echo no; fi; echo $?")[1] == "0\n"


def test_nested_loops_and_break_n():
    script = "for a in 1 2; do for b in x y; do [ $b = y ] && break 2; echo $a$b; done; done; echo out"
    assert sh(script)[1] == "1x\nout\n"


def test_a_loop_over_several_lines_and_its_output_redirected():
    script = "i=0\nwhile [ $i -lt 2 ]\ndo\n  echo line $i\n  i=$((i+1))\ndone > /tmp/out\ncat /tmp/out"
    assert sh(script, "busybox:1.36", "sh")[1] == "line 0\nline 1\n"


def test_a_script_piped_to_sh_reads_a_loop_to_its_done():
    status, out, _err = run(["sh"], "busybox:1.36", stdin=b"for x in 1 2\ndo\necho $x\ndone\necho end\n")
    assert (status, out) == (0, "1\n2\nend\n")


def test_test_builtin():
    assert (
        sh("[ -d /etc ] && [ -f /etc/hostname ] && [ ! -e /nope ] && [ -n x -a -z '' ] && echo ok")[1]
        == "ok\n"
    )
    status, _out, err = sh("[ abc -lt 3 ]")
    assert status == 2 and err == "bash: [: abc: integer expression expected\n"


def test_syntax_errors_of_compound_commands():
    with pytest.raises(Incomplete):
        parse("while true; do echo x")
    assert sh("while true; do echo x")[2] == "bash: -c: line 1: syntax error: unexpected end of file\n"
    assert sh("done")[2] == "bash: -c: line 1: syntax error near unexpected token `done'\n"
    assert sh("echo done; echo if")[1] == "done\nif\n"


def test_an_endless_loop_ends_by_its_budget(settings):
    settings.KUBESIM_SHELL_CPU_SECONDS = 0.5
    running = Running(["sh", "-c", "while true; do :; done"])
    running.wait(20)
    assert running.status == 137
    assert "KubeSim stopped this command" in "".join(running.out)


def test_an_endless_loop_stops_within_2_s_of_its_caller_leaving(settings):
    settings.KUBESIM_SHELL_MAX_STEPS = 10**9
    settings.KUBESIM_SHELL_CPU_SECONDS = 1000.0
    running = Running(["sh", "-c", "while true; do :; done"], stdin=InputStream())
    time.sleep(0.5)
    assert running.thread.is_alive()
    running.stdin.abort()
    assert running.wait(2) < 2


def test_a_sleeping_loop_ticks():
    status, out, _err = sh(
        "i=0; while [ $i -lt 2 ]; do echo tick $i; sleep 0.1; i=$((i+1)); done", "busybox:1.36", "sh"
    )
    assert (status, out) == (0, "tick 0\ntick 1\n")


def test_read_takes_one_line_per_turn_from_a_pipe_a_file_or_stdin():
    from tests.shell.support import run

    script = "printf 'a b c\\nd e\\n' | while read x rest; do echo \"[$x] [$rest]\"; done"
    assert sh(script)[1] == "[a] [b c]\n[d] [e]\n"
    script = "echo 'one two' > /tmp/f; read first < /tmp/f; echo $first; read; echo $?"
    assert sh(script, image="busybox:1.36", shell="sh")[1] == "one two\n1\n"
    status, out, _ = run(["sh", "-c", "while read line; do echo got $line; done; echo end"], stdin=b"x\ny\n")
    assert (status, out) == (0, "got x\ngot y\nend\n")
    assert sh("echo 'a\\\\b c' | while read -r v; do echo \"$v\"; done")[1] == "a\\\\b c\n"
    assert sh("echo 'a\\\\b c' | while read v; do echo \"$v\"; done")[1] == "a\\b c\n"
