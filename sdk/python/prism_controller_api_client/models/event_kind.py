from enum import StrEnum

class EventKind(StrEnum):
    AUTO_MOVE = "auto-move"
    NODE_STARTED = "node-started"
    RECONFIGURATION_DONE = "reconfiguration-done"
    RECONFIGURATION_FAILED = "reconfiguration-failed"
    RECONFIGURATION_STARTED = "reconfiguration-started"
    TIER_MOVE = "tier-move"

    def __str__(self) -> str:
        return str(self.value)
