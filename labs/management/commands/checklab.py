"""`python manage.py checklab PATH… | --all`: validate lab files and self-test them."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from database.throwaway_db import migrated_or_throwaway
from labs.loader import LabValidationError, bundled_paths, load_lab_file
from labs.selftest import self_test


class Command(BaseCommand):
    help = "Validate lab files and self-test them: each step's checks fail before its solution, pass after."

    def add_arguments(self, parser) -> None:
        parser.add_argument("paths", nargs="*", help="lab files (YAML)")
        parser.add_argument("--all", action="store_true", help="check every bundled lab (labs/bundled/)")
        parser.add_argument("--no-selftest", action="store_true", help="only validate the files")

    def handle(self, *args, **options):
        # A fresh clone has no migrated database: then these run on a throwaway one of their own.
        with migrated_or_throwaway(self.stdout):
            return self._handle(*args, **options)

    def _handle(self, *args, paths: list[str], all: bool, no_selftest: bool, **options) -> None:
        files = [*paths, *(str(p) for p in bundled_paths())] if all else paths
        if not files:
            raise CommandError("give lab files, or --all for the bundled labs")
        failures = 0
        for path in files:
            failures += not self._check(path, no_selftest)
        total = len(files)
        if failures:
            raise CommandError(f"{failures} of {total} lab(s) failed")
        self.stdout.write(self.style.SUCCESS(f"{total} lab(s) OK"))

    def _check(self, path: str, no_selftest: bool) -> bool:
        try:
            lab = load_lab_file(path)
        except OSError as exc:
            self.stderr.write(f"{path}: cannot read: {exc.strerror}")
            return False
        except LabValidationError as exc:
            for error in exc.errors:
                self.stderr.write(f"{path}: {error}")
            return False
        if no_selftest:
            self.stdout.write(f"✓ {path}: lab '{lab.id}' is valid ({len(lab.steps)} steps)")
            return True
        report = self_test(lab)
        for error in report.errors:
            self.stderr.write(f"{path}: {error}")
        if report.ok:
            self.stdout.write(f"✓ {path}: lab '{lab.id}': {len(lab.steps)} steps fail before and pass after")
        return report.ok
