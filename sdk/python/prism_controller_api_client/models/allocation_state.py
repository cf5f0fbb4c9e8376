from enum import StrEnum

class AllocationState(StrEnum):
    ALLOCATED = "allocated"
    PROVISIONED = "provisioned"
    UNALLOCATED = "unallocated"

    def __str__(self) -> str:
        return str(self.value)
