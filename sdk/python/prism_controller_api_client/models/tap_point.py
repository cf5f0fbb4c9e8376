from enum import StrEnum

class TapPoint(StrEnum):
    EGRESS = "egress"
    INGRESS = "ingress"

    def __str__(self) -> str:
        return str(self.value)
