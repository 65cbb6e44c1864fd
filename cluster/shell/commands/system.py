"""Who and where: hostname, id, whoami, uname, date, df, ps, env, printenv, sleep, nproc."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.shell import resumable
from cluster.shell.profiles import Process

KERNEL = "5.15.0-122-generic"
KERNEL_BUILD = "#132-Ubuntu SMP Thu Aug 29 13:45:52 UTC 2024"
MAX_SLEEP_SECONDS = 30


def hostname(sh, argv, io) -> int:
    if "-i" in argv[1:] or "-I" in argv[1:]:
        io.write_out((sh.ctx.pod_ip or "127.0.0.1") + ("\n" if "-i" in argv else " \n"))
    else:
        io.write_out(sh.ctx.hostname + "\n")
    return 0


def id_(sh, argv, io) -> int:
    io.write_out("uid=0(root) gid=0(root) groups=0(root)\n")
    return 0


def whoami(sh, argv, io) -> int:
    io.write_out("root\n")
    return 0


def uname(sh, argv, io) -> int:
    flags = {c for a in argv[1:] if a.startswith("-") for c in a[1:]} or {"s"}
    if "a" in flags:
        io.write_out(f"Linux {sh.ctx.hostname} {KERNEL} {KERNEL_BUILD} x86_64 GNU/Linux\n")
        return 0
    fields = {
        "s": "Linux",
        "n": sh.ctx.hostname,
        "r": KERNEL,
        "v": KERNEL_BUILD,
        "m": "x86_64",
        "o": "GNU/Linux",
    }
    io.write_out(" ".join(v for k, v in fields.items() if k in flags) + "\n")
    return 0


def date(sh, argv, io) -> int:
    now = datetime.now(UTC)
    formats = [a for a in argv[1:] if a.startswith("+")]
    if formats:
        io.write_out(now.strftime(formats[0][1:]) + "\n")
    else:
        io.write_out(now.strftime("%a %b ") + f"{now.day:>2}" + now.strftime(" %H:%M:%S UTC %Y") + "\n")
    return 0


def df(sh, argv, io) -> int:
    human = any("h" in a for a in argv[1:] if a.startswith("-"))
    rows = [
        ("overlay", 102626232, 18350112, 79017924, "/"),
        ("tmpfs", 65536, 0, 65536, "/dev"),
        ("shm", 65536, 0, 65536, "/dev/shm"),
        ("/dev/sda1", 102626232, 18350112, 79017924, "/etc/hosts"),
    ]

    def size(kib: int) -> str:
        if not human:
            return str(kib)
        return f"{kib / 1024 / 1024:.0f}G" if kib > 1024 * 1024 else f"{kib // 1024}M" if kib else "0"

    header = "Size" if human else "1K-blocks"
    lines = [f"{'Filesystem':<15}{header:>10}{'Used':>9}{'Available':>10} Use% Mounted on"]
    for name, total, used, free, mount in rows:
        use = f"{round(100 * used / total)}%" if used else "0%"
        lines.append(f"{name:<15}{size(total):>10}{size(used):>9}{size(free):>10} {use:>4} {mount}")
    io.write_out("\n".join(lines) + "\n")
    return 0


def ps(sh, argv, io) -> int:
    """busybox's ps lists every process; procps' lists this terminal's unless asked (aux, -ef)."""
    processes = list(sh.ctx.processes())
    shell_pid = 7 + len(processes)  # the exec'd shell and this ps come after the image's processes
    processes += [Process(shell_pid, "root", sh.name), Process(shell_pid + 6, "root", " ".join(argv))]
    if sh.ctx.profile.base.busybox:
        lines = ["PID   USER     TIME  COMMAND"] + [
            f"{p.pid:>5} {p.user:<8}  0:00 {p.command}" for p in processes
        ]
    elif any(a in ("aux", "-ef", "-e", "-A", "ax") for a in argv[1:]):
        lines = ["UID          PID    PPID  C STIME TTY          TIME CMD"]
        lines += [
            f"{p.user:<8} {p.pid:>7} {0 if p.pid == 1 else 1:>7}  0 00:00 ?        00:00:00 {p.command}"
            for p in processes
        ]
    else:
        tty = "pts/0" if sh.ctx.tty else "?"
        lines = ["    PID TTY          TIME CMD"]
        lines += [f"{p.pid:>7} {tty:<8} 00:00:00 {p.command.split()[0]}" for p in processes[-2:]]
    io.write_out("\n".join(lines) + "\n")
    return 0


def env(sh, argv, io) -> int:
    assignments = [a for a in argv[1:] if "=" in a]
    rest = [a for a in argv[1:] if "=" not in a]
    variables = {**sh.env, **dict(a.split("=", 1) for a in assignments)}
    if rest:
        saved, sh.env = sh.env, variables
        try:
            return sh.execute(rest, io)
        finally:
            sh.env = saved
    io.write_out("".join(f"{k}={v}\n" for k, v in variables.items() if k != "PWD" or sh.style != "dash"))
    return 0


def printenv(sh, argv, io) -> int:
    if len(argv) == 1:
        io.write_out("".join(f"{k}={v}\n" for k, v in sh.env.items()))
        return 0
    status = 0
    for name in argv[1:]:
        if name in sh.env:
            io.write_out(sh.env[name] + "\n")
        else:
            status = 1
    return status


_SLEEP_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}


def sleep_seconds(word: str) -> float | None:
    """busybox and coreutils sleep's argument: 2, 0.5, 3s, 2m, 1h, 1d, inf; None for nonsense."""
    if word.lower() in ("inf", "infinity"):
        return float("inf")
    unit = word[-1:] if word[-1:] in "smhd" else ""
    try:
        number = float(word[: len(word) - len(unit)])
    except ValueError:
        return None
    return number * _SLEEP_UNITS[unit] if number == number else None  # not NaN


def sleep(sh, argv, io) -> int:
    seconds = sleep_seconds(argv[1]) if len(argv) > 1 else 0.0
    if seconds is None:
        io.write_err(f"sleep: invalid time interval '{argv[1]}'\n")
        return 1
    if resumable.current() is None:  # an exec holds its caller: a bounded sleep
        seconds = min(seconds, MAX_SLEEP_SECONDS)
    sh.budget.sleep(max(seconds, 0.0))  # wakes when the process is killed
    return 0


def nproc(sh, argv, io) -> int:
    io.write_out("4\n")
    return 0


def which(sh, argv, io) -> int:
    status = 0
    for name in argv[1:]:
        found = sh.fs.find_program(name, sh.env.get("PATH", ""), sh.cwd)
        if found:
            io.write_out(found + "\n")
        else:
            status = 1
    return status


def clear(sh, argv, io) -> int:
    io.write_out("\x1b[H\x1b[2J\x1b[3J")  # home, erase the screen and the scrollback
    return 0


PROGRAMS = {
    "which": which,
    "clear": clear,
    "hostname": hostname,
    "id": id_,
    "whoami": whoami,
    "uname": uname,
    "date": date,
    "df": df,
    "ps": ps,
    "env": env,
    "printenv": printenv,
    "sleep": sleep,
    "nproc": nproc,
}
