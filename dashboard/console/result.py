"""What a console command returns, and how an API server error reads in the console."""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.apiserver.errors import ApiError


@dataclass(slots=True)
class ConsoleResult:
    output: str
    exit_code: int = 0
    # Instructions for the page: {"panel": "scheduler", "namespace": .., "pod": ..} or a watch.
    ui: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"output": self.output, "exit_code": self.exit_code, "ui": self.ui}


def server_error(exc: ApiError) -> str:
    """kubectl's line for a Status error: `Error from server (NotFound): pods "x" not found`."""
    return f"Error from server ({exc.reason}): {exc.message}\n"
