import re

_UNSAFE = re.compile(r"[^a-z0-9]")


def slugify(text):
    """Turn a title into a URL slug: lower case, ASCII letters and digits, words joined by '-'."""
    lowered = text.strip().lower()
    return _UNSAFE.sub("-", lowered)
