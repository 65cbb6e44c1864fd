"""{% tr "English" "中文" %}: the labs' UI text in both languages, picked by the active language."""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

register = template.Library()


@register.simple_tag
def tr(en: str, zh: str) -> str:
    return zh if (get_language() or "en").startswith("zh") else en
