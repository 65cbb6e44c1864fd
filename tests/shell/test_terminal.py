"""The tty's line discipline and the interactive shell: echo, editing, Ctrl+C, Ctrl+D, exit."""

from __future__ import annotations

import pytest

from tests.shell.support import context, run

pytestmark = pytest.mark.django_db


def _session(keys: bytes, image: str = "nginx:1.25", shell: str = "bash"):
    return run([shell], image, stdin=keys, ctx=context(image, tty=True))


def test_prompt_echo_and_exit_status():
    status, out, err = _session(b"hostname\rexit 4\r")
    assert status == 4 and err == ""
    assert out == "root@web:/# hostname\r\nweb\r\nroot@web:/# exit 4\r\nexit\r\n"


def test_backspace_and_ctrl_u_edit_the_line():
    out = _session(b"echo abcd\x7f\x7fxy\rnonsense\x15pwd\rexit\r")[1]
    assert "echo abcd\b \b\b \bxy\r\nabxy\r\n" in out
    assert "\r\n/\r\n" in out


def test_ctrl_c_drops_the_line_and_ctrl_d_ends_the_shell():
    status, out, _err = _session(b"false\rhalf typed\x03\x04")
    assert out.endswith("half typed^C\r\nroot@web:/# exit\r\n")
    assert status == 130


def test_busybox_prompt_and_cd():
    out = _session(b"cd /etc\rexit\r", image="busybox:1.36", shell="sh")[1]
    assert out == "/ # cd /etc\r\n/etc # exit\r\n"


def test_without_a_terminal_sh_runs_its_standard_input():
    status, out, _err = run(["sh"], stdin=b"cd /etc/nginx\npwd\nexit 2\necho never\n")
    assert (status, out) == (2, "/etc/nginx\n")


def test_arrow_keys_recall_earlier_lines_in_bash_and_ash_but_not_in_dash():
    out = _session(b"hostname\r\x1b[A\rexit\r")[1]
    assert out.count("\r\nweb\r\n") == 2  # the up arrow brought `hostname` back
    out = _session(b"hostname\r\x1b[A\rexit\r", image="busybox:1.36", shell="sh")[1]
    assert out.count("\r\nweb\r\n") == 2
    out = _session(b"\x1b[A\rexit\r", shell="sh")[1]  # nginx's sh is dash: no line editing
    assert "# ^[[A\r\n" in out and ": not found" in out


def test_an_unfinished_loop_prompts_for_more_with_ps2():
    out = _session(b"for x in 1 2\rdo echo $x\rdone\rexit\r")[1]
    assert out == (
        "root@web:/# for x in 1 2\r\n> do echo $x\r\n> done\r\n1\r\n2\r\nroot@web:/# exit\r\nexit\r\n"
    )


def test_a_runaway_line_is_killed_and_the_prompt_comes_back(settings):
    settings.KUBESIM_SHELL_MAX_STEPS = 500
    out = _session(b"while true; do :; done\rhostname\rexit\r")[1]
    assert "KubeSim stopped this command: it ran more than 500 steps" in out
    assert out.endswith("root@web:/# hostname\r\nweb\r\nroot@web:/# exit\r\nexit\r\n")


def test_read_at_the_prompt_takes_the_next_typed_line():
    from tests.shell.support import run

    status, out, _ = run(["sh"], "busybox:1.36", stdin=b"read name\rAda\recho hi $name\rexit\r", tty=True)
    assert status == 0
    assert "read name\r\nAda\r\n/ # echo hi $name\r\nhi Ada\r\n" in out
