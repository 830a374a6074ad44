"""The server's log: ``--log-level`` and ``--log-format text|json``. JSON
writes one object per line (time, level, logger, message, and the
traceback when there is one), for log collectors."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from typing import Final

LEVELS: Final = ("DEBUG", "INFO", "WARNING", "ERROR")
FORMATS: Final = ("text", "json")
_TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            entry["traceback"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


def configure(level: str, log_format: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter() if log_format == "json" else
                         logging.Formatter(_TEXT_FORMAT))
    logging.basicConfig(level=level.upper(), handlers=[handler], force=True)
