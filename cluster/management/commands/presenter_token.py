"""Print the teacher's presenter link, or rotate the presenter token.

python manage.py presenter_token                 # the link, as `make run` prints it
python manage.py presenter_token --rotate        # a new token; the old one and its sessions stop working
"""

from __future__ import annotations

from django.contrib.sessions.models import Session
from django.core.management.base import BaseCommand

from cluster.auth import state
from cluster.auth.access import PRESENTER_USERNAME, presenter_token


class Command(BaseCommand):
    help = "Print the presenter link (the teacher's token), or rotate the token with --rotate."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument(
            "--rotate", action="store_true", help="replace the token and sign its sessions out"
        )

    def handle(self, *args, host: str, port: int, rotate: bool, **options):
        if rotate:
            state.rotate(state.PRESENTER_TOKEN_FILE)
            signed_out = sign_out_presenter_sessions()
            self.stdout.write(f"Rotated the presenter token; signed out {signed_out} presenter session(s).")
        self.stdout.write(f"Teacher: open http://{host}:{port}/presenter/?token={presenter_token()}")


def sign_out_presenter_sessions() -> int:
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.filter(username=PRESENTER_USERNAME).first()
    if user is None:
        return 0
    doomed = [s.pk for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)]
    Session.objects.filter(pk__in=doomed).delete()
    return len(doomed)
