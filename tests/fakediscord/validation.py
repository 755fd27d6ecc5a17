"""Limits Discord enforces on what a bot sends (PRODUCT.md "Limits of the platform").

The fake refuses a payload that Discord would refuse (400, code 50035), so a bot bug such as
a 26th select option or a sixth button row fails a test here instead of failing in a server.
"""

from __future__ import annotations

from typing import Any


def check_message_payload(payload: dict[str, Any], n_files: int) -> str | None:
    """What is wrong with a message payload, or None."""
    content = payload.get("content") or ""
    if len(content) > 2000:
        return f"content is {len(content)} characters (at most 2000)"
    embeds = payload.get("embeds") or []
    if len(embeds) > 10:
        return "more than 10 embeds"
    for embed in embeds:
        if len(embed.get("title") or "") > 256:
            return "embed title over 256 characters"
        if len(embed.get("description") or "") > 4096:
            return "embed description over 4096 characters"
        if len(embed.get("fields") or []) > 25:
            return "more than 25 embed fields"
    if n_files > 10:
        return "more than 10 files"
    rows = payload.get("components") or []
    if len(rows) > 5 and not int(payload.get("flags") or 0) & (1 << 15):
        return f"{len(rows)} action rows (at most 5)"
    seen: set[str] = set()
    for row in rows:
        problem = _check_row(row, seen)
        if problem:
            return problem
    return None


def _check_row(row: dict[str, Any], seen: set[str]) -> str | None:
    if row.get("type") != 1:
        return None  # components v2 layouts are not used by this bot
    children = row.get("components") or []
    if not 1 <= len(children) <= 5:
        return f"an action row holds {len(children)} components (1 to 5)"
    selects = [c for c in children if c.get("type") in (3, 5, 6, 7, 8)]
    if selects and len(children) > 1:
        return "a select menu must be alone in its row"
    for c in children:
        custom_id = c.get("custom_id")
        if custom_id is not None:
            if not 1 <= len(custom_id) <= 100:
                return f"custom_id {custom_id!r} is not 1 to 100 characters"
            if custom_id in seen:
                return f"custom_id {custom_id!r} used twice in one message"
            seen.add(custom_id)
        elif c.get("type") == 2 and c.get("style") != 5:
            return "a button without custom_id"
        if len(c.get("label") or "") > 80:
            return f"button label {c.get('label')!r} over 80 characters"
        if c.get("type") == 3:
            options = c.get("options") or []
            if not 1 <= len(options) <= 25:
                return f"a select menu with {len(options)} options (1 to 25)"
            for o in options:
                if len(o.get("label") or "") > 100 or len(str(o.get("value") or "")) > 100:
                    return "a select option over 100 characters"
    return None


def check_autocomplete_choices(choices: Any) -> str | None:
    if choices is None:
        return None
    if len(choices) > 25:
        return f"{len(choices)} autocomplete choices (at most 25)"
    for c in choices:
        if not 1 <= len(c.get("name") or "") <= 100:
            return f"autocomplete choice name {c.get('name')!r} not 1 to 100 characters"
        if len(str(c.get("value"))) > 100:
            return "autocomplete choice value over 100 characters"
    return None


#: Discord's limits on a modal (interaction callback type 9) and its text inputs.
MODAL_TITLE_MAX = 45
TEXT_INPUT_LABEL_MAX = 45
TEXT_INPUT_LENGTH_MAX = 4000
TEXT_INPUT_PLACEHOLDER_MAX = 100
LABEL_DESCRIPTION_MAX = 100


def check_modal(data: dict[str, Any]) -> str | None:
    """What is wrong with a modal the bot sends (title, rows, text inputs), or None.

    A modal holds 1 to 5 top-level components: action rows with exactly one text input (the
    classic shape discord.py still sends for a bare ``TextInput``), labels wrapping a text
    input (type 18, the newer shape), or text displays (type 10).
    """
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
        return f"modal custom_id {custom_id!r} is not 1 to 100 characters"
    title = data.get("title")
    if not isinstance(title, str) or not 1 <= len(title) <= MODAL_TITLE_MAX:
        return f"modal title {title!r} is not 1 to {MODAL_TITLE_MAX} characters"
    rows = data.get("components") or []
    if not 1 <= len(rows) <= 5:
        return f"a modal holds {len(rows)} components (1 to 5)"
    seen: set[str] = set()
    inputs = 0
    for row in rows:
        kind = row.get("type")
        if kind == 1:
            children = row.get("components") or []
            if len(children) != 1 or children[0].get("type") != 4:
                return "an action row in a modal holds exactly one text input"
            problem = _check_text_input(children[0], seen, labelled=False)
        elif kind == 18:
            label = row.get("label")
            if not isinstance(label, str) or not 1 <= len(label) <= TEXT_INPUT_LABEL_MAX:
                return f"label {label!r} is not 1 to {TEXT_INPUT_LABEL_MAX} characters"
            if len(row.get("description") or "") > LABEL_DESCRIPTION_MAX:
                return f"label description over {LABEL_DESCRIPTION_MAX} characters"
            inner = row.get("component") or {}
            if inner.get("type") != 4:
                return (f"a label holding component type {inner.get('type')} "
                        "(the fake knows text inputs only)")
            problem = _check_text_input(inner, seen, labelled=True)
        elif kind == 10:
            problem = None if 1 <= len(row.get("content") or "") <= 4000 else \
                "a text display must hold 1 to 4000 characters"
            inputs -= 1
        else:
            problem = f"component type {kind} at the top of a modal"
        if problem:
            return problem
        inputs += 1
    if inputs < 1:
        return "a modal without anything to fill in"
    return None


def _check_text_input(c: dict[str, Any], seen: set[str], *, labelled: bool) -> str | None:
    custom_id = c.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= 100:
        return f"text input custom_id {custom_id!r} is not 1 to 100 characters"
    if custom_id in seen:
        return f"text input custom_id {custom_id!r} used twice in one modal"
    seen.add(custom_id)
    if c.get("style") not in (1, 2):
        return f"text input {custom_id!r}: style {c.get('style')!r} (1 short, 2 paragraph)"
    label = c.get("label")
    if labelled:
        if label is not None and len(label) > TEXT_INPUT_LABEL_MAX:
            return f"text input {custom_id!r}: label over {TEXT_INPUT_LABEL_MAX} characters"
    elif not isinstance(label, str) or not 1 <= len(label) <= TEXT_INPUT_LABEL_MAX:
        return f"text input {custom_id!r}: label {label!r} is not 1 to 45 characters"
    lo, hi = c.get("min_length"), c.get("max_length")
    if lo is not None and not 0 <= lo <= TEXT_INPUT_LENGTH_MAX:
        return f"text input {custom_id!r}: min_length {lo} outside 0..{TEXT_INPUT_LENGTH_MAX}"
    if hi is not None and not 1 <= hi <= TEXT_INPUT_LENGTH_MAX:
        return f"text input {custom_id!r}: max_length {hi} outside 1..{TEXT_INPUT_LENGTH_MAX}"
    if lo is not None and hi is not None and lo > hi:
        return f"text input {custom_id!r}: min_length {lo} over max_length {hi}"
    if len(c.get("placeholder") or "") > TEXT_INPUT_PLACEHOLDER_MAX:
        return f"text input {custom_id!r}: placeholder over {TEXT_INPUT_PLACEHOLDER_MAX} characters"
    value = c.get("value")
    if value is not None and len(value) > (hi or TEXT_INPUT_LENGTH_MAX):
        return f"text input {custom_id!r}: pre-filled value longer than max_length"
    return None
