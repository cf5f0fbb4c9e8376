from enum import StrEnum

class Action(StrEnum):
    START = "start"
    STOP = "stop"

    def __str__(self) -> str:
        return str(self.value)
