"""Websockets of the lab panel and the progress board: thin, as Channels' sample recommends.

connect = check access → join the group → accept → send the state; "lab.changed" group messages
(sent by labs.progress after an evaluation changed something) make us send the state again.
"""

from __future__ import annotations

import asyncio
import functools
import time

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from cluster.auth.access import caller_of
from database.wsoffthread import NoConnectionHop
from labs import grader
from labs.models import ClassSession, Student
from labs.progress import session_group, student_group
from labs.state import board_state, student_state

# The lab panels' and the board's reads run beside the control planes, not on their database
# thread behind sixty sandboxes' work (Daphne drops a socket whose connect waits 5 s).
reading = functools.partial(database_sync_to_async, thread_sensitive=False)
BOARD_MIN_INTERVAL = 0.25  # a class of 60 changing at once redraws the board at most 4 times a second


@reading
def _student_of(scope: dict) -> Student | None:
    user = caller_of(scope).user  # the one access rule: a socket without Origin has no session
    if user is None:
        return None
    return Student.objects.select_related("session__lab", "sandbox").filter(user=user).first()


@reading
def _student_state(student_id: int) -> dict | None:
    student = Student.objects.select_related("session__lab", "sandbox").filter(pk=student_id).first()
    return student_state(student) if student else None


class StudentConsumer(NoConnectionHop, AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        student = await _student_of(self.scope)
        if student is None or student.sandbox is None:
            await self.close(code=4403)
            return
        self.student_id = student.pk
        self.group = student_group(student.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_state()
        grader.ensure(student.pk, student.sandbox.name)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def send_state(self) -> None:
        stamp = time.time()  # before the read: a state read later is at least as new
        state = await _student_state(self.student_id)
        if state is None:
            await self.close(code=4404)
            return
        await self._send(state, stamp)

    async def _send(self, state: dict, stamp: float) -> None:
        # A state computed before the one last sent (their messages crossed) is stale: dropped.
        if stamp < getattr(self, "sent_stamp", 0.0):
            return
        self.sent_stamp = stamp
        await self.send_json({"type": "state", "state": state})

    async def lab_changed(self, event: dict) -> None:
        if event.get("state") is not None:  # computed with the check that changed it (labs.grader)
            await self._send(event["state"], event["stamp"])
        else:
            await self.send_state()


@reading
def _session_for(scope: dict, code: str) -> tuple[ClassSession | None, list[tuple[int, str]]]:
    if not caller_of(scope).teacher:
        return None, []
    session = ClassSession.objects.select_related("lab").filter(code=code).first()
    if session is None:
        return None, []
    students = list(session.students.exclude(sandbox=None).values_list("pk", "sandbox__name"))
    return session, students


@reading
def _board(session_id: int) -> dict:
    return board_state(ClassSession.objects.select_related("lab").get(pk=session_id))


class BoardConsumer(NoConnectionHop, AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        code = self.scope["url_route"]["kwargs"]["code"]
        session, students = await _session_for(self.scope, code)
        if session is None:
            await self.close(code=4403)
            return
        self.session_id = session.pk
        self.group = session_group(session.pk)
        self.pending: asyncio.Task | None = None
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_json({"type": "board", "board": await _board(self.session_id)})
        for student_id, sandbox in students:
            grader.ensure(student_id, sandbox)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
        if getattr(self, "pending", None) is not None:
            self.pending.cancel()

    async def lab_changed(self, event: dict) -> None:
        # Coalesce bursts: one redraw shortly after the first change of a burst.
        if self.pending is None or self.pending.done():
            self.pending = asyncio.create_task(self._send_later())

    async def students_changed(self, event: dict) -> None:
        _, students = await _session_for(self.scope, self.scope["url_route"]["kwargs"]["code"])
        for student_id, sandbox in students:
            grader.ensure(student_id, sandbox)
        await self.lab_changed(event)

    async def _send_later(self) -> None:
        await asyncio.sleep(BOARD_MIN_INTERVAL)
        await self.send_json({"type": "board", "board": await _board(self.session_id)})
