"""{% tr obj.title_en obj.title_zh %}: pick the active language's side of bilingual lab data.

Lab titles and texts come from lab files in both languages; the UI's own strings use Django i18n.
"""

from __future__ import annotations

from django import template
from django.utils.translation import get_language

register = template.Library()


@register.simple_tag
def tr(en: str, zh: str) -> str:
    return zh if (get_language() or "en").startswith("zh") else en
