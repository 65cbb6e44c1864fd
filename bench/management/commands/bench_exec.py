"""Measure `kubectl exec` against a running KubeSim with the real kubectl binary.

python manage.py bench_exec --kubeconfig .kubesim/demo.kubeconfig --pod web --runs 20

1. `kubectl exec POD -- hostname`, start to exit (kubectl's own start-up and discovery included);
2. in one `kubectl exec -it POD -- bash` through a pseudo-terminal: a typed line (`hostname`) to
   the next prompt, i.e. the websocket round trip plus the shell's work.
"""

from __future__ import annotations

import os
import pty
import select
import shutil
import statistics
import subprocess
import time

from django.core.management.base import BaseCommand, CommandError

from bench.stats import percentile


def _read_until(fd: int, marker: bytes, timeout: float = 10.0) -> bytes:
    data = b""
    deadline = time.monotonic() + timeout
    while marker not in data:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise CommandError(f"no {marker!r} from kubectl within {timeout} s; got {data[-200:]!r}")
        data += os.read(fd, 65536)
    return data


class Command(BaseCommand):
    help = "Time kubectl exec (one command, and lines in an interactive shell) with the real kubectl."

    def add_arguments(self, parser):
        parser.add_argument(
            "--kubeconfig", default=".kubesim/demo.kubeconfig", help="the teacher's (make run)"
        )
        parser.add_argument("--pod", default="web")
        parser.add_argument("--runs", type=int, default=20)
        parser.add_argument("--kubectl", default=shutil.which("kubectl") or "kubectl")

    def handle(self, *args, kubeconfig: str, pod: str, runs: int, kubectl: str, **options):
        base = [kubectl]
        env = {**os.environ, "KUBECONFIG": kubeconfig}
        once = []
        for _ in range(runs):
            started = time.perf_counter()
            result = subprocess.run(
                [*base, "exec", pod, "--", "hostname"], capture_output=True, env=env, timeout=30
            )
            once.append((time.perf_counter() - started) * 1000)
            if result.returncode != 0:
                raise CommandError(result.stderr.decode(errors="replace"))
        self.stdout.write(self._line("kubectl exec POD -- hostname (process start to exit)", once))

        master, slave = pty.openpty()
        process = subprocess.Popen(
            [*base, "exec", "-it", pod, "--", "bash"], stdin=slave, stdout=slave, stderr=slave, env=env
        )
        os.close(slave)
        prompt = f"root@{pod}:/# ".encode()
        try:
            _read_until(master, prompt)
            lines = []
            for _ in range(runs):
                started = time.perf_counter()
                os.write(master, b"hostname\r")
                _read_until(master, prompt)
                lines.append((time.perf_counter() - started) * 1000)
            os.write(master, b"exit\r")
            process.wait(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
            os.close(master)
        self.stdout.write(self._line("interactive line -> next prompt (kubectl exec -it ... bash)", lines))

    @staticmethod
    def _line(what: str, values: list[float]) -> str:
        return (
            f"{what}: n={len(values)} p50={statistics.median(values):.1f} ms "
            f"p95={percentile(values, 0.95):.1f} ms max={max(values):.1f} ms"
        )
