"""SQLite functions behind pg_cancel_backend() and pg_terminate_backend():
the sessions they signal belong to the layer above (``BackendControl``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from catalog import errors


class BackendControl(Protocol):
    def cancel(self, process_id: int) -> bool:
        """Cancel the running statement of session ``process_id``."""
        ...

    def terminate(self, process_id: int) -> bool:
        """End session ``process_id``."""
        ...


def backend_functions(control: BackendControl) -> dict[str, tuple[int, Callable[..., Any]]]:
    """name -> (argument count, implementation); NULL in, NULL out."""

    def cancel(process_id: Any) -> int | None:
        return None if process_id is None else int(control.cancel(int(process_id)))

    def terminate(process_id: Any, timeout_ms: Any = 0) -> int | None:
        if process_id is None or timeout_ms is None:
            return None
        if int(timeout_ms) < 0:
            raise errors.NumericValueOutOfRange('"timeout" must not be negative')
        # The session ends as soon as the running statement returns, so
        # there is nothing to wait for.
        return int(control.terminate(int(process_id)))

    return {
        "sqlext_cancel_backend": (1, cancel),
        "sqlext_terminate_backend": (-1, terminate),
    }
