"""Django's database sessions, stored under a hash of their key (SESSION_ENGINE).

A session key is a bearer credential: whoever has the cookie is the teacher, or the student whose
sandbox it opens. The database keeps only a SHA-256 of it (truncated to the column's 40
characters), so a copy of the database, or a look at it, signs nobody in. The browser's cookie is
the key itself, as before; a session is found by hashing the cookie.
"""

from __future__ import annotations

import hashlib

from django.contrib.sessions.backends import db

STORED_LENGTH = 40  # django_session.session_key's max_length


def stored_key(session_key: str) -> str:
    """What the database keeps of a session key."""
    return hashlib.sha256(session_key.encode()).hexdigest()[:STORED_LENGTH]


def is_stored_hash(value: str) -> bool:
    """A key as this engine stores it (Django's own keys are 32 characters long)."""
    return len(value) == STORED_LENGTH


class SessionStore(db.SessionStore):
    def _get_session_from_db(self):
        if self.session_key is None:
            return None
        plain = self.session_key
        self._session_key = stored_key(plain)
        try:
            return super()._get_session_from_db()
        finally:
            if self._session_key is not None:  # found (Django clears it when not)
                self._session_key = plain

    async def _aget_session_from_db(self):
        if self.session_key is None:
            return None
        plain = self.session_key
        self._session_key = stored_key(plain)
        try:
            return await super()._aget_session_from_db()
        finally:
            if self._session_key is not None:
                self._session_key = plain

    def exists(self, session_key):
        return super().exists(stored_key(session_key))

    async def aexists(self, session_key):
        return await super().aexists(stored_key(session_key))

    def create_model_instance(self, data):
        instance = super().create_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    async def acreate_model_instance(self, data):
        instance = await super().acreate_model_instance(data)
        instance.session_key = stored_key(instance.session_key)
        return instance

    def delete(self, session_key=None):
        session_key = session_key if session_key is not None else self.session_key
        if session_key is not None:
            super().delete(stored_key(session_key))

    async def adelete(self, session_key=None):
        session_key = session_key if session_key is not None else self.session_key
        if session_key is not None:
            await super().adelete(stored_key(session_key))
