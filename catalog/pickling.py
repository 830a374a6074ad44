"""Loading catalog objects from snapshots written by older versions."""

from __future__ import annotations

from dataclasses import fields


def restore_fields(instance: object, state: tuple[object, ...]) -> None:
    """``__setstate__`` of a slotted catalog dataclass: fields added since the
    snapshot was written take their defaults."""
    for position, spec in enumerate(fields(instance)):  # type: ignore[arg-type]
        value = state[position] if position < len(state) else spec.default
        object.__setattr__(instance, spec.name, value)
