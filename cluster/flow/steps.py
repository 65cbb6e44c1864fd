"""The course's 13 list-watch steps: who does each one, between whom, in the course's words.

`STEPS` is the catalogue the dashboard lists beside its diagram; the texts recorded in a trace
are specific versions of these (they name the object, the node and the real client).
The notes' ports: the controller manager watches over http 8080, the kubelet over https 6443.
"""

from __future__ import annotations

from dataclasses import dataclass

CONTROLLER_MANAGER_PORT = "http 8080"
KUBELET_PORT = "https 6443"

# Whoever plays kubectl's part (the web form, an API client) is drawn as kubectl; `detail` names it.
ACTORS = ("kubectl", "apiserver", "etcd", "controller-manager", "scheduler", "kubelet")


@dataclass(frozen=True, slots=True)
class Step:
    step: int
    actor: str
    source: str
    target: str
    title_en: str
    title_zh: str
    detail_en: str
    detail_zh: str

    def as_dict(self) -> dict:
        return {
            "step": self.step,
            "actor": self.actor,
            "from": self.source,
            "to": self.target,
            "title": {"en": self.title_en, "zh": self.title_zh},
            "detail": {"en": self.detail_en, "zh": self.detail_zh},
        }


_CATALOGUE = (
    Step(
        1,
        "apiserver",
        "controller-manager,scheduler,kubelet",
        "apiserver",
        "Three list-watches are open",
        "三个 List-Watch 已就绪",
        "The Controller Manager (on the master), the Scheduler (on the master) and the kubelet (on each "
        "node) start watching the APIServer's events as soon as their processes start.",
        "这里有三个 List-Watch，分别是 Controller Manager（运行在 Master），Scheduler（运行在 Master），"
        "kubelet（运行在 Node）。他们在进程已启动就会监听（Watch）APIServer 发出来的事件。",
    ),
    Step(
        2,
        "kubectl",
        "kubectl",
        "apiserver",
        "kubectl sends the request",
        "kubectl 提交请求",
        "The user submits a request to the APIServer through kubectl or another API client to create a "
        "Pod object.",
        "用户通过 kubectl 或其他 API 客户端提交请求给 APIServer 来建立一个 Pod 对象副本。",
    ),
    Step(
        3,
        "apiserver",
        "apiserver",
        "etcd",
        "APIServer stores the object in etcd",
        "APIServer 将对象存入 etcd",
        "The APIServer stores the object's metadata in etcd; once the write completes, it returns a "
        "confirmation to the client.",
        "APIServer 尝试着将 Pod 对象的相关元信息存入 etcd 中，待写入操作执行完成，APIServer 即会返回确认"
        "信息至客户端。",
    ),
    Step(
        4,
        "etcd",
        "etcd",
        "apiserver",
        "etcd sends a Create event",
        "etcd 发送 Create 事件",
        "Once etcd has accepted the object, it sends a Create event to the APIServer.",
        "当 etcd 接受创建 Pod 信息以后，会发送一个 Create 事件给 APIServer。",
    ),
    Step(
        5,
        "controller-manager",
        "apiserver",
        "controller-manager",
        "The Controller Manager receives the event",
        "Controller Manager 收到事件",
        "The Controller Manager keeps watching the APIServer's events (over http 8080); the APIServer "
        "passes the Create event on to it.",
        "由于 Controller Manager 一直在监听（Watch，通过http的8080端口）APIServer 中的事件。此时 "
        "APIServer 接受到了 Create 事件，又会发送给 Controller Manager。",
    ),
    Step(
        6,
        "controller-manager",
        "controller-manager",
        "apiserver",
        "The Replication Controller creates replicas",
        "Replication Controller 创建副本",
        "The Controller Manager calls its Replication Controller, which keeps the number of replicas: "
        "whenever there are fewer than the RC defines, it creates more (it does scaling up and down).",
        "Controller Manager 在接到 Create 事件以后，调用其中的 Replication Controller 来保证 Node 上面需要"
        "创建的副本数量。一旦副本数量少于 RC 中定义的数量，RC 会自动创建副本。",
    ),
    Step(
        7,
        "apiserver",
        "apiserver",
        "etcd",
        "APIServer records the Pod in etcd",
        "APIServer 在 etcd 中记录 Pod",
        "After the Controller Manager creates a Pod replica, the APIServer records the Pod's details in "
        "etcd, such as what its containers are.",
        "在 Controller Manager 创建 Pod 副本以后，APIServer 会在 etcd 中记录这个 Pod 的详细信息。例如 Pod "
        "的副本数，Container 的内容是什么。",
    ),
    Step(
        8,
        "etcd",
        "etcd",
        "apiserver",
        "etcd sends the Pod's Create event",
        "etcd 发送 Pod 的创建事件",
        "Likewise, etcd sends the Pod's creation to the APIServer as an event.",
        "同样的 etcd 会将创建 Pod 的信息通过事件发送给 APIServer。",
    ),
    Step(
        9,
        "scheduler",
        "apiserver",
        "scheduler",
        "The Scheduler picks a node",
        "Scheduler 为 Pod 安排 Node",
        "The Scheduler watches the APIServer and links what comes before with what comes after: it "
        "receives the Pod's Create event and picks a node for it by its algorithms and policies.",
        "由于 Scheduler 在监听（Watch）APIServer，并且它在系统中起到了“承上启下”的作用，“承上”是指它负责"
        "接收创建的 Pod 事件，为其安排 Node；“启下”是指安置工作完成后，Node 上的 kubelet 进程会接管后继"
        "工作，负责 Pod 生命周期中的“下半生”。",
    ),
    Step(
        10,
        "scheduler",
        "scheduler",
        "apiserver",
        "The Scheduler binds the Pod to its node",
        "Scheduler 更新 Pod 的 Node 信息",
        "After scheduling, the Scheduler updates the Pod, which now also says which node it goes to, "
        "and sends it to the APIServer, which saves it in etcd.",
        "Scheduler 调度完毕以后会更新 Pod 的信息，此时的信息更加丰富了。除了知道 Pod 的副本数量，副本"
        "内容。还知道部署到哪个 Node 上面了。并将上面的 Pod 信息更新至 API Server，由 APIServer 更新至 "
        "etcd 中，保存起来。",
    ),
    Step(
        11,
        "etcd",
        "etcd",
        "apiserver",
        "etcd reports the update",
        "etcd 发送更新成功事件",
        "etcd sends the successful update to the APIServer as an event, and the APIServer starts to "
        "reflect the Pod's scheduling result.",
        "etcd 将更新成功的事件发送给 APIServer，APIServer 也开始反映此 Pod 对象的调度结果。",
    ),
    Step(
        12,
        "kubelet",
        "apiserver",
        "kubelet",
        "kubelet starts the containers with Docker",
        "kubelet 调用 Docker 启动容器",
        "The kubelet, a process on the node, watches the APIServer's Pod updates (over https 6443); it "
        "calls Docker to start the containers and sends the Pod's and containers' status back to the "
        "APIServer.",
        "kubelet 是在 Node 上面运行的进程，它也通过 List-Watch 的方式监听（Watch，通过https的6443端口）"
        "APIServer 发送的 Pod 更新的事件。kubelet 会尝试在当前节点上调用 Docker 启动容器，并将 Pod 以及"
        "容器的结果状态回送至 APIServer。",
    ),
    Step(
        13,
        "apiserver",
        "apiserver",
        "etcd",
        "APIServer stores the Pod's status",
        "APIServer 存储 Pod 状态",
        "The APIServer stores the Pod's status in etcd; once etcd confirms the write, the APIServer "
        "sends the acknowledgement to the kubelet.",
        "APIServer 将 Pod 状态信息存入 etcd 中。在 etcd 确认写入操作成功完成后，APIServer将确认信息发送"
        "至相关的 kubelet，事件将通过它被接受。",
    ),
)

BY_NUMBER: dict[int, Step] = {step.step: step for step in _CATALOGUE}

# The catalogue as plain dicts, for templates and JSON (the dashboard's list of steps 1–13).
STEPS: tuple[dict, ...] = tuple(step.as_dict() for step in _CATALOGUE)


def catalogue() -> tuple[Step, ...]:
    return _CATALOGUE
