from enum import StrEnum

class StrategyName(StrEnum):
    FALLBACK = "fallback"
    FULL = "full"
    PARTIAL = "partial"

    def __str__(self) -> str:
        return str(self.value)
