"""What the kubelet's lane says of a pod's init containers and probes beside steps 12–13.

Step 12 names the init containers the kubelet will run first, one after another; step 13 says how
each one ended and what the probes report, read from the status the kubelet wrote (the Ready and
Started fields its prober sets: `cluster/kubelet/probes.py`). Each function returns (en, zh);
both are "" for a pod with nothing to say (no init container, no probe).
"""

from __future__ import annotations

OK, BAD = "✓", "✗"
PENDING = ("pending", "待定")  # a probe with no success yet: upstream stores no failure either


def init_plan(pod: dict) -> tuple[str, str]:
    """Step 12: "init containers first, in order: a, b" (sidecars keep running beside the app)."""
    inits = (pod.get("spec") or {}).get("initContainers") or []
    if not inits:
        return "", ""
    names = ", ".join(
        c.get("name", "") + (" (sidecar)" if c.get("restartPolicy") == "Always" else "") for c in inits
    )
    names_zh = ", ".join(
        c.get("name", "") + ("（边车）" if c.get("restartPolicy") == "Always" else "") for c in inits
    )
    return (
        f" Init containers run first, one after another, each to completion: {names}.",
        f" 先逐个运行 Init 容器，每个都须成功结束：{names_zh}。",
    )


def _init_mark(status: dict | None) -> tuple[str, str]:
    state = (status or {}).get("state") or {}
    if "terminated" in state:
        code = state["terminated"].get("exitCode", 0)
        return (OK, OK) if code == 0 else (f"{BAD} exit {code}", f"{BAD} 退出码 {code}")
    if "running" in state:
        return ("running", "运行中")
    reason = (state.get("waiting") or {}).get("reason") or ""
    return (f"waiting ({reason})", f"等待中（{reason}）") if reason else ("waiting", "等待中")


def _probe_marks(container: dict, status: dict | None) -> list[tuple[str, str]]:
    """The probes the container has, as its status reports them: startup through `started`,
    readiness through `ready` (false until the first success, as upstream's prober): ✓ or
    pending; a liveness failure shows as a restart."""
    status = status or {}
    marks = []
    if container.get("startupProbe") is not None:
        en, zh = (OK, OK) if status.get("started") else PENDING
        marks.append((f"startup {en}", f"启动探针 {zh}"))
    if container.get("readinessProbe") is not None:
        en, zh = (OK, OK) if status.get("ready") else PENDING
        marks.append((f"readiness {en}", f"就绪探针 {zh}"))
    if container.get("livenessProbe") is not None:
        restarts = status.get("restartCount", 0)
        en = f"liveness (restarts {restarts})" if restarts else "liveness"
        marks.append((en, f"存活探针（重启 {restarts} 次）" if restarts else "存活探针"))
    return marks


def results(pod: dict) -> tuple[str, str]:
    """Step 13: "init: wait-db ✓ · web: readiness ✗" from the reported status."""
    spec, status = pod.get("spec") or {}, pod.get("status") or {}
    init_status = {s.get("name"): s for s in status.get("initContainerStatuses") or []}
    main_status = {s.get("name"): s for s in status.get("containerStatuses") or []}
    en_parts, zh_parts = [], []
    inits = spec.get("initContainers") or []
    if inits:
        marks = [(c.get("name", ""), _init_mark(init_status.get(c.get("name")))) for c in inits]
        en_parts.append("init: " + ", ".join(f"{name} {en}" for name, (en, _zh) in marks))
        zh_parts.append("Init 容器：" + "，".join(f"{name} {zh}" for name, (_en, zh) in marks))
    for container in spec.get("containers") or []:
        marks = _probe_marks(container, main_status.get(container.get("name")))
        if marks:
            en_parts.append(f"{container.get('name')}: " + ", ".join(en for en, _zh in marks))
            zh_parts.append(f"{container.get('name')}：" + "，".join(zh for _en, zh in marks))
    if not en_parts:
        return "", ""
    return " " + " · ".join(en_parts) + ".", " " + " · ".join(zh_parts) + "。"
