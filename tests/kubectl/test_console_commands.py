"""The web console speaks the second lesson as kubectl does: each command run by the real kubectl
and by the console against the same live KubeSim, their output compared byte for byte (the
object's name swapped: kubectl's objects are `k-…`, the console's `c-…`).

As the teacher (the kubeconfig over TLS; the presenter link's session for the console) and as an
anonymous viewer (`kubectl --server http://…`; a page without a session), whose refused writes
name the resource and the verb kubectl's do.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kubectl.conftest import Kubectl, _kubectl_binary, live_server
from tests.support.auth import teacher_token
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

EXAMPLES = Path(__file__).resolve().parents[2] / "dashboard" / "examples"
HASH = re.compile(r"(?<=pod-template-hash=)[a-z0-9]+")
# What kubectl's rollout status says while a Deployment rolls out (the lines depend on when it
# starts watching).
WAITING = re.compile(
    r'Waiting for deployment (spec update to be observed|"[kc]-\w+" rollout to finish: \d+ '
    r"(out of \d+ new replicas have been updated|old replicas are pending termination"
    r"|of \d+ updated replicas are available))\.\.\."
)


@dataclass
class Console:
    """The dashboard's web console over HTTP, as a page sends it (session cookie and CSRF token)."""

    base: str
    opener: urllib.request.OpenerDirector
    csrf: str

    @classmethod
    def open(cls, base: str, teacher: bool) -> Console:
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        if teacher:
            opener.open(f"{base}/presenter/?token={teacher_token()}", timeout=30)
        opener.open(f"{base}/clusters/demo/", timeout=30)
        csrf = next(cookie.value for cookie in jar if cookie.name == "csrftoken")
        return cls(base, opener, csrf)

    def run(self, line: str, stdin: str = "") -> tuple[str, int]:
        body = json.dumps({"command": line, "stdin": stdin}).encode()
        headers = {
            "Content-Type": "application/json",
            "X-CSRFToken": self.csrf,
            "Origin": self.base,
            "Referer": f"{self.base}/clusters/demo/",
        }
        request = urllib.request.Request(f"{self.base}/clusters/demo/ui/console", body, headers)
        with self.opener.open(request, timeout=200) as response:
            answer = json.loads(response.read())
        return answer["output"], answer["exit_code"]


def merged(kubectl: Kubectl, line: str) -> tuple[str, int]:
    """kubectl's stdout and stderr as one terminal shows them, and its exit status."""
    command, env = kubectl._command(tuple(line.split()))
    done = subprocess.run(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=EXAMPLES,
        timeout=200,
    )
    return done.stdout, done.returncode


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    _kubectl_binary()
    with live_server(tmp_path_factory.mktemp("console"), seed=None) as live:
        yield live


@pytest.fixture(scope="module")
def teacher(server) -> tuple[Kubectl, Console]:
    home = server.tmp / "home"
    home.mkdir(exist_ok=True)
    kubectl = Kubectl(
        _kubectl_binary(), f"{server.http}/clusters/demo", home, server.kubeconfig("demo", "teacher")
    )
    return kubectl, Console.open(server.http, teacher=True)


@pytest.fixture(scope="module")
def viewer(server) -> tuple[Kubectl, Console]:
    home = server.tmp / "home-anonymous"
    home.mkdir(exist_ok=True)
    return Kubectl(_kubectl_binary(), f"{server.http}/clusters/demo", home), Console.open(
        server.http, teacher=False
    )


def compare(pair: tuple[Kubectl, Console], template: str, name: str = "x") -> tuple | None:
    """Run `template` (NAME stands for the object) with kubectl on k-NAME and in the console on
    c-NAME; None when both print the same text with the same status (the console's name read as
    kubectl's), else what each printed."""
    kubectl, console = pair
    theirs = merged(kubectl, template.replace("NAME", f"k-{name}"))
    text, status = console.run(template.replace("NAME", f"c-{name}"))
    ours = (text.replace(f"c-{name}", f"k-{name}"), status)
    # A template's hash follows from its labels, which hold the Deployment's name.
    theirs, ours = ((HASH.sub("HASH", answer[0]), answer[1]) for answer in (theirs, ours))
    return None if ours == theirs else (template, theirs, ours)


def same(pair: tuple[Kubectl, Console], templates: list[str], name: str = "x") -> None:
    """Every template's output the same from kubectl and the console, run in order."""
    mismatches = [found for template in templates if (found := compare(pair, template, name))]
    assert not mismatches, "\n".join(
        f"$ kubectl {t}\nkubectl: {k!r}\nconsole: {c!r}" for t, k, c in mismatches
    )


def rolled_out(pair: tuple[Kubectl, Console], name: str) -> None:
    """Wait for both Deployments' rollouts: what `rollout status` prints on the way depends on
    when it starts watching, so each is checked to follow kubectl's sentences and end done."""
    kubectl, console = pair
    for text, status in (
        merged(kubectl, f"rollout status deploy/k-{name}"),
        console.run(f"rollout status deploy/c-{name}"),
    ):
        assert status == 0 and text.endswith("successfully rolled out\n"), text
        for line in text.splitlines()[:-1]:
            assert WAITING.fullmatch(line), line


def twice(pair: tuple[Kubectl, Console], line: str, undo: str) -> None:
    """The same command on the same object: kubectl's run, undone, then the console's."""
    kubectl, console = pair
    theirs = merged(kubectl, line)
    merged(kubectl, undo)
    assert console.run(line) == theirs, line
    merged(kubectl, undo)


GENERATORS = [
    "run NAME --image=nginx:1.27",
    "run NAME --image=nginx:1.27",  # again: AlreadyExists, in kubectl's words
    "run NAME-bb --image=busybox:1.36 --restart=Never --labels=app=bb,tier=a --env=A=b --port=80 -- sleep 1h",
    "run NAME-dry --image=nginx --dry-run=client -o yaml --command -- sh -c hi",
    "run NAME-dry --image=nginx --dry-run=client -o json",
    "run NAME-dry --image=nginx --dry-run=client",
    "run NAME-bad --image=nginx --restart=Sometimes",
    "run NAME-x",
    "run --image=nginx",
    "create deployment NAME --image=nginx:1.27 --replicas=2 --port=80",
    "create deployment NAME --image=nginx:1.27",
    "create deployment NAME-two --image=nginx:1.27 --image=redis:7 --dry-run=client -o json",
    "create deployment NAME-cmd --image=busybox:1.36 --dry-run=client -o yaml -- sleep 10",
    "create deployment NAME-none",
    "create deployment --image=nginx",
    "create job NAME --image=busybox:1.36 -- echo hi",
    "create job NAME-none",
    "create service clusterip NAME --tcp=80:8080,443",
    "create service clusterip NAME-none",
    "create service clusterip NAME-headless --clusterip=None",
    "create service nodeport NAME-np --tcp=80 --dry-run=client -o json",
    "create service loadbalancer NAME-lb --tcp=80",
    "create service externalname NAME-ext --external-name=example.org",
    "create service externalname NAME-ext2",
    "create configmap NAME --from-literal=a=b --from-literal=c=d",
    "create configmap NAME-dup --from-literal=a=b --from-literal=a=c",
    "create configmap NAME-bad --from-literal=a",
    "create cm NAME-f --from-file=rc-nginx.yaml --from-file=pod=pod-nodename.yaml -o json --dry-run=client",
    "create secret generic NAME --from-literal=password=s3cret --dry-run=client -o yaml",
    "create secret generic NAME --from-literal=password=s3cret",
    "create priorityclass NAME --value=1000 --description=vips",
    "create priorityclass NAME-never --value=5 --preemption-policy=Never --dry-run=client -o json",
    "create namespace NAME",
    "create ns NAME",
    # Quotas that hold no later command back: object counts far above what the tests create.
    "create quota NAME --hard=count/cronjobs.batch=100,secrets=50.0",
    "create quota NAME-dry --hard=pods=2,cpu=0.5,memory=1024Mi --scopes=BestEffort --dry-run=client -o json",
    "create quota NAME-scoped --hard=services.loadbalancers=1 --scopes=NotBestEffort",
    "create resourcequota NAME-bad --hard=pods",
    "create quota NAME-q --hard=pods=x",
    "create quota NAME-neg --hard=pods=-1",
    "expose deployment NAME --port=80",
    "expose deployment NAME --port=80",
    "expose deployment NAME --name=NAME-np --type=NodePort --target-port=8080 --dry-run=client -o json",
    "expose pod NAME-bb --protocol=UDP --dry-run=client -o yaml",
    "expose rc NAME-none --port=80",
]


def test_the_generator_commands_print_what_kubectl_prints(teacher):
    same(teacher, GENERATORS)


def test_scale_set_image_and_the_rollout_commands_print_what_kubectl_prints(teacher):
    kubectl, console = teacher
    merged(kubectl, "create deployment k-roll --image=nginx:1.27 --replicas=2")
    console.run("create deployment c-roll --image=nginx:1.27 --replicas=2")
    available = "jsonpath={.status.availableReplicas}"
    for name in ("k-roll", "c-roll"):
        assert wait_for(
            lambda name=name: kubectl.run("get", "deploy", name, "-o", available).stdout == "2", 60
        )
    templates = [
        "rollout status deployment/NAME",
        "rollout status deploy NAME --watch=false",
        "rollout history deployment/NAME",
        "scale deployment NAME --replicas=3",
        "scale deployment/NAME deployment/NAME-missing --replicas=3",
        "scale deployment NAME --current-replicas=1 --replicas=2",
        "set image deployment/NAME nginx=nginx:1.16",
        "set image deployment/NAME nginx=nginx:1.16",  # unchanged: nothing sent, nothing printed
        "set image deployment/NAME nope=nginx:1.16",
    ]
    same(teacher, templates, "roll")
    rolled_out(teacher, "roll")
    templates = [
        "rollout status deployment/NAME",
        "rollout history deployment/NAME",
        "rollout history deployment/NAME --revision=2",
        "rollout history deployment/NAME --revision=9",
        "rollout status deployment/NAME --revision=9",
        "rollout undo deployment/NAME --to-revision=7",
        "rollout undo deployment/NAME",
    ]
    same(teacher, templates, "roll")
    rolled_out(teacher, "roll")
    templates = [
        "rollout history deployment/NAME",
        "rollout undo deployment/NAME --to-revision=3",
        "rollout undo deployment/NAME --to-revision=2",
        "rollout restart rc/NAME",
        "rollout status rc/NAME",
        "rollout history rc/NAME",
        "rollout undo rc/NAME",
    ]
    same(teacher, templates, "roll")
    for name in ("k-roll", "c-roll"):  # restarted: a new template, the output names the object
        line = f"rollout restart deployment/{name}"
        answer = merged(kubectl, line) if name == "k-roll" else console.run(line)
        assert answer == (f"deployment.apps/{name} restarted\n", 0)


def test_cordon_taint_and_drain_print_what_kubectl_prints(teacher):
    kubectl, console = teacher
    twice(teacher, "cordon node2", "uncordon node2")
    twice(teacher, "taint nodes node2 lesson=drain:NoSchedule", "taint nodes node2 lesson=drain:NoSchedule-")
    merged(kubectl, "cordon node2")
    twice(teacher, "cordon node2", "cordon node2")  # already cordoned
    twice(teacher, "uncordon node2", "cordon node2")
    merged(kubectl, "uncordon node2")
    same(teacher, ["cordon nope"])

    def node_with_pods(prefix: str) -> str:
        """A node of the test's own with a bare pod and an RC's pod: drain warns of the first and
        evicts both (the RC's replacement waits: its node is cordoned)."""
        node = f"{prefix}-node"
        capacity = {"cpu": "2", "memory": "4Gi", "pods": "110"}
        kubectl.ok(
            "apply",
            "-f",
            "-",
            stdin=json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "Node",
                    "metadata": {"name": node, "labels": {"kubernetes.io/hostname": node}},
                    "status": {"capacity": capacity, "allocatable": capacity},
                }
            ),
        )
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{prefix}-bare"},
            "spec": {"nodeName": node, "containers": [{"name": "web", "image": "nginx:1.27"}]},
        }
        template = {
            "metadata": {"labels": {"app": f"{prefix}-rc"}},
            "spec": {
                "nodeSelector": {"kubernetes.io/hostname": node},
                "containers": [{"name": "web", "image": "nginx:1.27"}],
            },
        }
        rc = {
            "apiVersion": "v1",
            "kind": "ReplicationController",
            "metadata": {"name": f"{prefix}-rc"},
            "spec": {"replicas": 1, "selector": {"app": f"{prefix}-rc"}, "template": template},
        }
        for obj in (pod, rc):
            kubectl.ok("apply", "-f", "-", stdin=json.dumps(obj))
        assert wait_for(
            lambda: "Running" in kubectl.ok("get", "pods", "-l", f"app={prefix}-rc", "--no-headers"), 60
        )
        assert wait_for(lambda: "Running" in kubectl.ok("get", "pod", f"{prefix}-bare", "--no-headers"), 60)
        return node

    outputs = []
    for prefix in ("k", "c"):
        line = f"drain {node_with_pods(prefix)} --ignore-daemonsets --force --timeout=90s"
        text, status = merged(kubectl, line) if prefix == "k" else console.run(line)
        assert status == 0, text
        # The RC's pod has a random suffix; kubectl prints the evictions as they end, in any order.
        text = re.sub(rf"{prefix}-rc-[a-z0-9]{{5}}", "RC-POD", text).replace(f"{prefix}-", "")
        lines = text.splitlines()
        outputs.append((lines[:2], sorted(lines[2:])))
        kubectl.ok("delete", "rc", f"{prefix}-rc")
    assert outputs[0] == outputs[1]
    assert outputs[1] == (
        ["node/node cordoned", "Warning: deleting Pods that declare no controller: default/bare"],
        [
            "evicting pod default/RC-POD",
            "evicting pod default/bare",
            "node/node drained",
            "pod/RC-POD evicted",
            "pod/bare evicted",
        ],
    )


def test_top_prints_the_metrics_api_as_kubectl_does(teacher):
    """The figures change at each scrape (every 15 s): a pair that straddles one is run again."""
    kubectl, console = teacher
    for line in (
        "top nodes",
        "top nodes --sort-by=memory --no-headers",
        "top node node1",
        "top pods -A",
        "top pods -A --containers --sort-by=cpu",
        "top pods -n kube-system --sort-by=memory",
        "top pod nope",
        "top nodes --sort-by=disk",
        "top pods -l app=nothing-has-this",
    ):
        for _attempt in range(3):
            printed = merged(kubectl, line), console.run(line)
            if printed[0] == printed[1]:
                break
        assert printed[0] == printed[1], line
    assert merged(kubectl, "top nodes")[0].startswith(
        "NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n"
    )


def test_what_the_console_does_not_speak_reads_as_kubectl_with_a_pointer_to_help(teacher):
    kubectl, console = teacher
    pointer = "Run 'help' for the commands this console knows.\n"
    for line in (
        "foo",
        "gett pods",
        "rollout foo",
        "create foo x",
        "run x --image=nginx --frobnicate",
        "get pods -x",
    ):
        theirs, ours = merged(kubectl, line), console.run(line)
        assert ours[1] == theirs[1] == 1, line
        assert ours[0] in (theirs[0], f"{theirs[0]}{pointer}", f"{theirs[0]}\n{pointer}"), line
    for line, command in (
        ("port-forward web 8080", "port-forward"),
        ("edit pod web", "edit"),
        ("create secret tls x", "create secret tls"),
        ("rollout pause deployment/x", "rollout pause"),
    ):
        text, status = console.run(line)
        assert status == 1 and text.startswith(f'error: the web console does not run "kubectl {command}"'), (
            text
        )
        assert text.endswith(pointer)
    text, status = console.run("run x --image=nginx --rm")
    assert status == 1 and text.startswith('error: the web console does not take --rm for "kubectl run"')


VIEWER_WRITES = [
    "apply -f rc-nginx.yaml",
    "create -f pod-nodename.yaml",
    "label nodes node2 x=y",
    "annotate nodes node2 x=y",
    "run NAME --image=nginx",
    "create deployment NAME --image=nginx",
    "create job NAME --image=busybox",
    "create service clusterip NAME --tcp=80",
    "create configmap NAME --from-literal=a=b",
    "create secret generic NAME --from-literal=a=b",
    "create priorityclass NAME --value=5",
    "create namespace NAME",
    "scale deployment k-roll --replicas=1",
    "cordon node1",
    "taint nodes node1 a=b:NoSchedule",
    "delete pod k-x",
    "set image deployment/k-roll nginx=nginx:1.15",
    "rollout restart deployment/k-roll",
    "rollout undo deployment/k-roll",
    "expose deployment k-roll --port=81 --name=NAME",
]


def test_a_viewers_refused_writes_name_the_resource_and_verb_as_kubectl_does(viewer, teacher):
    kubectl = teacher[0]
    if merged(kubectl, "get deployment k-roll")[1]:
        merged(kubectl, "create deployment k-roll --image=nginx:1.27")
    for template in VIEWER_WRITES:
        if template.startswith("annotate"):  # a command the console does not run: it says so
            text, _ = viewer[1].run(template)
            assert 'does not run "kubectl annotate"' in text
            continue
        theirs = merged(viewer[0], template.replace("NAME", "v-x"))
        ours = viewer[1].run(template.replace("NAME", "v-x"))
        assert ours == theirs, template
        assert "forbidden" in ours[0] and 'User "system:anonymous"' in ours[0], template


MISTAKE = """\
apiVersion: v1
kind: Pod
metadata:
  name: NAME
spec:
  containers:
  - name: main
    image: nginx
    tolerations:
    - key: gpu
      operator: Exists
"""


def test_strict_decoding_refusals_read_as_kubectls(teacher):
    kubectl, console = teacher
    for verb in ("apply", "create"):
        theirs = kubectl.run(verb, "-f", "-", stdin=MISTAKE.replace("NAME", "k-gpu"))
        ours = console.run(f"{verb} -f -", MISTAKE.replace("NAME", "c-gpu"))
        assert (ours[0].replace("c-gpu", "k-gpu"), ours[1]) == (theirs.stderr, theirs.returncode), verb
    # An existing object: kubectl prints the patch it computed, then the server's refusal of it;
    # the console (applying server-side) prints that refusal alone.
    fixed = MISTAKE.split("    tolerations")[0]
    kubectl.ok("apply", "-f", "-", stdin=fixed.replace("NAME", "k-ok"))
    assert console.run("apply -f -", fixed.replace("NAME", "c-ok"))[1] == 0
    theirs = kubectl.run("apply", "-f", "-", stdin=MISTAKE.replace("NAME", "k-ok"))
    text, status = console.run("apply -f -", MISTAKE.replace("NAME", "c-ok"))
    assert status == theirs.returncode == 1
    refusal = text.split("): ", 1)[1]
    assert refusal.startswith('error when patching "STDIN": strict decoding error: unknown field')
    assert theirs.stderr.endswith(refusal)
