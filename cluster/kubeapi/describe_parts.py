"""The sections kubectl's describers share: labels, containers, volumes, tolerations, events...

Each function returns tab-separated lines written exactly as describe.go writes them.
"""

from __future__ import annotations

from datetime import datetime
from fractions import Fraction

from cluster.kubeapi.humanize import parse_time, since
from k8s.labels import format_label_selector
from k8s.quantity import Total, format_quantity, is_binary, parse_quantity

RFC1123Z = "%a, %d %b %Y %H:%M:%S %z"
_MAX_ANNOTATION = 140
_SKIP_ANNOTATIONS = {"kubectl.kubernetes.io/last-applied-configuration"}


def _time(value: str | None) -> str:
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "Mon, 01 Jan 0001 00:00:00 +0000"


def labels_multiline(title: str, labels: dict | None) -> list[str]:
    if not labels:
        return [f"{title}:\t<none>"]
    keys = sorted(labels)
    return [f"{title}:\t{keys[0]}={labels[keys[0]]}", *(f"\t{k}={labels[k]}" for k in keys[1:])]


def annotations_multiline(title: str, annotations: dict | None) -> list[str]:
    keys = sorted(k for k in annotations or {} if k not in _SKIP_ANNOTATIONS)
    if not keys:
        return [f"{title}:\t<none>"]
    lines: list[str] = []
    for i, key in enumerate(keys):
        lead = f"{title}:\t" if i == 0 else "\t"
        value = str(annotations[key]).removesuffix("\n")  # type: ignore[index]
        if len(value) + len(key) + 2 > _MAX_ANNOTATION or "\n" in value:
            lines.append(f"{lead}{key}:")
            width = _MAX_ANNOTATION - 2
            lines += [f"\t  {s[:width] + '...' if len(s) > width else s}" for s in value.split("\n")]
        else:
            lines.append(f"{lead}{key}: {value}")
    return lines


def tolerations_multiline(tolerations: list | None) -> list[str]:
    if not tolerations:
        return ["Tolerations:\t<none>"]
    lines = []
    for i, t in enumerate(sorted(tolerations, key=lambda t: t.get("key", ""))):
        text = t.get("key", "")
        text += f"={t['value']}" if t.get("value") else ""
        text += f":{t['effect']}" if t.get("effect") else ""
        if t.get("operator") == "Exists" and not t.get("value"):
            text += " op=Exists" if t.get("key") or t.get("effect") else "op=Exists"
        if t.get("tolerationSeconds") is not None:
            text += f" for {t['tolerationSeconds']}s"
        lines.append(("Tolerations:\t" if i == 0 else "\t") + text)
    return lines


def taints_multiline(taints: list | None) -> list[str]:
    if not taints:
        return ["Taints:\t<none>"]
    ordered = sorted(taints, key=lambda t: f"{t.get('effect', '')},{t.get('key', '')}")
    texts = [
        f"{t.get('key')}={t['value']}:{t.get('effect')}"
        if t.get("value")
        else f"{t.get('key')}:{t.get('effect')}"
        for t in ordered
    ]
    return [f"Taints:\t{texts[0]}", *(f"\t{t}" for t in texts[1:])]


def topology_spread(constraints: list | None) -> list[str]:
    lines = []
    for i, c in enumerate(sorted(constraints or [], key=lambda c: c.get("topologyKey", ""))):
        text = f"{c.get('topologyKey')}:{c.get('whenUnsatisfiable')}"
        text += f" when max skew {c.get('maxSkew')} is exceeded"
        if c.get("labelSelector") is not None:
            text += f" for selector {format_label_selector(c['labelSelector'])}"
        lines.append(("Topology Spread Constraints:\t" if i == 0 else "\t") + text)
    return lines


def _probe(probe: dict) -> str:
    attrs = (
        f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 1)}s "
        f"period={probe.get('periodSeconds', 10)}s #success={probe.get('successThreshold', 1)} "
        f"#failure={probe.get('failureThreshold', 3)}"
    )
    if "exec" in probe:
        return f"exec [{' '.join((probe['exec'] or {}).get('command') or [])}] {attrs}"
    if "httpGet" in probe:
        h = probe["httpGet"] or {}
        host = f"{h.get('host', '')}:{h['port']}" if h.get("port") not in (None, "") else h.get("host", "")
        return f"http-get {h.get('scheme', 'HTTP').lower()}://{host}{h.get('path', '')} {attrs}"
    if "tcpSocket" in probe:
        t = probe["tcpSocket"] or {}
        return f"tcp-socket {t.get('host', '')}:{t.get('port', '')} {attrs}"
    return f"unknown {attrs}"


def _state(title: str, state: dict) -> list[str]:
    if "running" in state:
        return [
            f"    {title}:\tRunning",
            f"      Started:\t{_time((state['running'] or {}).get('startedAt'))}",
        ]
    if "terminated" in state:
        t = state["terminated"] or {}
        lines = [f"    {title}:\tTerminated"]
        lines += [f"      Reason:\t{t['reason']}"] if t.get("reason") else []
        lines += [f"      Message:\t{t['message']}"] if t.get("message") else []
        lines.append(f"      Exit Code:\t{t.get('exitCode', 0)}")
        lines += [f"      Signal:\t{t['signal']}"] if t.get("signal") else []
        return [
            *lines,
            f"      Started:\t{_time(t.get('startedAt'))}",
            f"      Finished:\t{_time(t.get('finishedAt'))}",
        ]
    waiting = state.get("waiting") or {}
    return [
        f"    {title}:\tWaiting",
        *([f"      Reason:\t{waiting['reason']}"] if waiting.get("reason") else []),
    ]


def _env(env: list) -> list[str]:
    if not env:
        return ["    Environment:\t<none>"]
    lines = ["    Environment:"]
    for e in env:
        source = e.get("valueFrom")
        if source is None:
            first, *rest = str(e.get("value", "")).split("\n")
            lines += [f"      {e.get('name')}:\t{first}", *(f"      \t{s}" for s in rest)]
        elif "fieldRef" in source:
            ref = source["fieldRef"] or {}
            lines.append(f"      {e.get('name')}:\t ({ref.get('apiVersion', 'v1')}:{ref.get('fieldPath')})")
        elif "secretKeyRef" in source or "configMapKeyRef" in source:
            secret = "secretKeyRef" in source
            ref = source.get("secretKeyRef") or source.get("configMapKeyRef") or {}
            where = f"in secret '{ref.get('name')}'" if secret else f"of config map '{ref.get('name')}'"
            optional = "true" if ref.get("optional") else "false"
            lines.append(
                f"      {e.get('name')}:\t<set to the key '{ref.get('key')}' {where}>\tOptional: {optional}"
            )
        else:
            lines.append(f"      {e.get('name')}:\t<unknown>")
    return lines


def _env_from(sources: list) -> list[str]:
    """describeContainerEnvFrom: each ConfigMap or Secret the container's env comes from."""
    if not sources:
        return []
    lines = ["    Environment Variables from:"]
    for source in sources:
        kind = "ConfigMap" if "configMapRef" in source else "Secret"
        ref = source.get("configMapRef") or source.get("secretRef") or {}
        optional = "true" if ref.get("optional") else "false"
        prefix = f" with prefix '{source['prefix']}'" if source.get("prefix") else ""
        lines.append(f"      {ref.get('name', '')}\t{kind}{prefix}\tOptional: {optional}")
    return lines


def _container(c: dict, status: dict | None) -> list[str]:
    lines = [f"  {c.get('name')}:"]
    if status is not None:
        lines.append(f"    Container ID:\t{status.get('containerID', '')}")
    lines.append(f"    Image:\t{c.get('image', '')}")
    if status is not None:
        lines.append(f"    Image ID:\t{status.get('imageID', '')}")
    ports = c.get("ports") or []
    port_text = ", ".join(f"{p.get('containerPort', 0)}/{p.get('protocol', 'TCP')}" for p in ports)
    host_text = ", ".join(f"{p.get('hostPort', 0)}/{p.get('protocol', 'TCP')}" for p in ports)
    lines.append(f"    Ports:\t{port_text}" if "," in port_text else f"    Port:\t{port_text or '<none>'}")
    lines.append(
        f"    Host Ports:\t{host_text}" if "," in host_text else f"    Host Port:\t{host_text or '<none>'}"
    )
    for title, key in (("Command", "command"), ("Args", "args")):
        if c.get(key):
            lines += [f"    {title}:", *(f"      {part}" for part in c[key])]
    if status is not None:
        lines += _state("State", status.get("state") or {})
        if ((status.get("lastState") or {}).get("terminated")) is not None:
            lines += _state("Last State", status["lastState"])
        lines += [f"    Ready:\t{'True' if status.get('ready') else 'False'}"]
        lines += [f"    Restart Count:\t{status.get('restartCount', 0)}"]
    resources = c.get("resources") or {}
    for title in ("limits", "requests"):
        if resources.get(title):
            lines.append(f"    {title.capitalize()}:")
            lines += [f"      {k}:\t{format_quantity(v)}" for k, v in sorted(resources[title].items())]
    for title, key in (
        ("Liveness", "livenessProbe"),
        ("Readiness", "readinessProbe"),
        ("Startup", "startupProbe"),
    ):
        if c.get(key):
            lines.append(f"    {title}:\t{_probe(c[key])}")
    lines += _env_from(c.get("envFrom") or [])
    lines += _env(c.get("env") or [])
    mounts = sorted(c.get("volumeMounts") or [], key=lambda m: m.get("mountPath", ""))
    lines.append("    Mounts:" if mounts else "    Mounts:\t<none>")
    for m in mounts:
        flags = ["ro" if m.get("readOnly") else "rw"] + (
            [f'path="{m["subPath"]}"'] if m.get("subPath") else []
        )
        lines.append(f"      {m.get('mountPath')} from {m.get('name')} ({','.join(flags)})")
    return lines


def containers(label: str, specs: list, statuses: list | None) -> list[str]:
    by_name = {s.get("name"): s for s in statuses or []}
    lines = [f"{label}:" if specs else f"{label}: <none>"]
    for c in specs:
        lines += _container(c, by_name.get(c.get("name")))
    return lines


def volumes(vols: list | None) -> list[str]:
    if not vols:
        return ["Volumes:\t<none>"]
    lines = ["Volumes:"]
    for v in vols:
        lines.append(f"  {v.get('name')}:")
        if "hostPath" in v:
            h = v["hostPath"] or {}
            lines += [
                "    Type:\tHostPath (bare host directory volume)",
                f"    Path:\t{h.get('path', '')}",
                f"    HostPathType:\t{h.get('type') or '<none>'}",
            ]
        elif "emptyDir" in v:
            e = v["emptyDir"] or {}
            limit = format_quantity(e["sizeLimit"]) if e.get("sizeLimit") else "<unset>"
            lines += [
                "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)",
                f"    Medium:\t{e.get('medium', '')}",
                f"    SizeLimit:\t{limit}",
            ]
        elif "configMap" in v:
            cm = v["configMap"] or {}
            lines += [
                "    Type:\tConfigMap (a volume populated by a ConfigMap)",
                f"    Name:\t{cm.get('name', '')}",
                f"    Optional:\t{'true' if cm.get('optional') else 'false'}",
            ]
        elif "secret" in v:
            secret = v["secret"] or {}
            lines += [
                "    Type:\tSecret (a volume populated by a Secret)",
                f"    SecretName:\t{secret.get('secretName', '')}",
                f"    Optional:\t{'true' if secret.get('optional') else 'false'}",
            ]
        elif "projected" in v:
            lines += _projected(v["projected"] or {})
        else:
            lines.append("  <unknown>")
    return lines


def _projected(projected: dict) -> list[str]:
    """printProjectedVolumeSource: one line (or two) per source."""
    lines = ["    Type:\tProjected (a volume that contains injected data from multiple sources)"]
    for source in projected.get("sources") or []:
        source = source if isinstance(source, dict) else {}
        if isinstance(source.get("secret"), dict):
            secret = source["secret"]
            lines += [
                f"    SecretName:\t{secret.get('name', '')}",
                f"    Optional:\t{'true' if secret.get('optional') else 'false'}",
            ]
        elif isinstance(source.get("downwardAPI"), dict):
            lines.append("    DownwardAPI:\ttrue")
        elif isinstance(source.get("configMap"), dict):
            config_map = source["configMap"]
            lines += [
                f"    ConfigMapName:\t{config_map.get('name', '')}",
                f"    Optional:\t{'true' if config_map.get('optional') else 'false'}",
            ]
        elif isinstance(source.get("serviceAccountToken"), dict):
            seconds = source["serviceAccountToken"].get("expirationSeconds")
            lines.append(f"    TokenExpirationSeconds:\t{seconds if seconds is not None else 3600}")
    return lines


def _pod_resources(pod: dict, field: str) -> dict[str, Total]:
    """resourcehelper.PodRequestsAndLimits for cpu and memory: containers summed, init max, overhead."""
    spec = pod.get("spec") or {}
    totals: dict[str, Total] = {}
    for name in ("cpu", "memory"):
        total = Total()
        for c in spec.get("containers") or []:
            total.add(((c.get("resources") or {}).get(field) or {}).get(name))
        for c in spec.get("initContainers") or []:
            value = ((c.get("resources") or {}).get(field) or {}).get(name)
            if value is not None and parse_quantity(value) > total.value:
                total.value = parse_quantity(value)
                total.binary = is_binary(value) if total.binary is None else total.binary
        if name in (spec.get("overhead") or {}):
            total.add(spec["overhead"][name])
        totals[name] = total
    return totals


def qos_class(pod: dict) -> str:
    spec = pod.get("spec") or {}
    requests: dict[str, Fraction] = {}
    limits: dict[str, Fraction] = {}
    guaranteed = True
    for c in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        res = c.get("resources") or {}
        for target, field in ((requests, "requests"), (limits, "limits")):
            for name in ("cpu", "memory"):
                value = (res.get(field) or {}).get(name)
                if value is not None and parse_quantity(value) != 0:
                    target[name] = target.get(name, Fraction(0)) + parse_quantity(value)
        if not {"cpu", "memory"} <= {
            k for k, v in (res.get("limits") or {}).items() if parse_quantity(v) != 0
        }:
            guaranteed = False
    if not requests and not limits:
        return "BestEffort"
    if guaranteed and all(requests.get(k, limits[k]) == limits[k] for k in limits):
        return "Guaranteed"
    return "Burstable"


def _percent(part: Fraction, whole: Fraction) -> int:
    return int(part / whole * 100) if whole else 0


def node_resources(node: dict, pods: list[dict], now: datetime) -> list[str]:
    status = node.get("status") or {}
    alloc = status.get("allocatable") or status.get("capacity") or {}
    alloc_cpu, alloc_mem = parse_quantity(alloc.get("cpu", 0)), parse_quantity(alloc.get("memory", 0))
    lines = [
        f"Non-terminated Pods:\t({len(pods)} in total)",
        "  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\tAge",
        "  ---------\t----\t\t------------\t----------\t---------------\t-------------\t---",
    ]
    sums = {key: Total() for key in ("rc", "lc", "rm", "lm")}
    for pod in pods:
        req, lim = _pod_resources(pod, "requests"), _pod_resources(pod, "limits")
        cells = []
        for key, total, whole in (
            ("rc", req["cpu"], alloc_cpu),
            ("lc", lim["cpu"], alloc_cpu),
            ("rm", req["memory"], alloc_mem),
            ("lm", lim["memory"], alloc_mem),
        ):
            cells.append(f"{total} ({_percent(total.value, whole)}%)")
            if total.value:
                sums[key].add(str(total))
        meta = pod.get("metadata") or {}
        age = since(meta.get("creationTimestamp"), now)
        lines.append(f"  {meta.get('namespace', '')}\t{meta.get('name', '')}\t\t{chr(9).join(cells)}\t{age}")
    lines += [
        "Allocated resources:",
        "  (Total limits may be over 100 percent, i.e., overcommitted.)",
        "  Resource\tRequests\tLimits",
        "  --------\t--------\t------",
        f"  cpu\t{sums['rc']} ({_percent(sums['rc'].value, alloc_cpu)}%)\t"
        f"{sums['lc']} ({_percent(sums['lc'].value, alloc_cpu)}%)",
        f"  memory\t{sums['rm']} ({_percent(sums['rm'].value, alloc_mem)}%)\t"
        f"{sums['lm']} ({_percent(sums['lm'].value, alloc_mem)}%)",
        "  ephemeral-storage\t0 (0%)\t0 (0%)",
    ]
    for name in sorted(k for k in alloc if k.startswith("hugepages-")):
        lines.append(f"  {name}\t0 (0%)\t0 (0%)")
    return lines


def _event_age(event: dict, now: datetime) -> str:
    first = event.get("eventTime") or event.get("firstTimestamp")
    first_since = since(first, now)
    series = event.get("series")
    if series:
        return f"{since(series.get('lastObservedTime'), now)} (x{series.get('count')} over {first_since})"
    if (event.get("count") or 0) > 1:
        return f"{since(event.get('lastTimestamp'), now)} (x{event['count']} over {first_since})"
    return first_since


def events_section(events: list[dict], now: datetime) -> list[str]:
    """DescribeEvents: "Events:\t<none>" joins the block above; a table is flushed on its own."""
    if not events:
        return ["Events:\t<none>"]

    def last_seen(e: dict) -> datetime:
        when = parse_time(e.get("lastTimestamp") or e.get("eventTime") or e.get("firstTimestamp"))
        return when or now

    lines = ["Events:", "  Type\tReason\tAge\tFrom\tMessage", "  ----\t------\t----\t----\t-------"]
    for e in sorted(events, key=last_seen):
        source = (e.get("source") or {}).get("component") or e.get("reportingController", "")
        message = (e.get("message") or "").strip()
        lines.append(
            f"  {e.get('type', '')}\t{e.get('reason', '')}\t{_event_age(e, now)}\t{source}\t{message}"
        )
    return lines
