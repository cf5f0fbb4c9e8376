from enum import StrEnum

class Tier(StrEnum):
    HARDWARE = "hardware"
    SOFTWARE = "software"

    def __str__(self) -> str:
        return str(self.value)
