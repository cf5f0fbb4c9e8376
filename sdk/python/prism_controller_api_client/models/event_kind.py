from enum import StrEnum

class EventKind(StrEnum):
    AUTO_MOVE = "auto-move"
    RECONFIGURATION_DONE = "reconfiguration-done"
    RECONFIGURATION_FAILED = "reconfiguration-failed"
    RECONFIGURATION_STARTED = "reconfiguration-started"

    def __str__(self) -> str:
        return str(self.value)
