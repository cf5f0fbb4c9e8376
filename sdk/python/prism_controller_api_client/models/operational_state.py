from enum import StrEnum

class OperationalState(StrEnum):
    FAILED = "failed"
    PENDING = "pending"
    READY = "ready"
    STOPPED = "stopped"

    def __str__(self) -> str:
        return str(self.value)
