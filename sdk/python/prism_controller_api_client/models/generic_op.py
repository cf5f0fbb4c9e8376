from enum import StrEnum

class GenericOp(StrEnum):
    GET = "get"
    OPERATE = "operate"
    PROGRAM = "program"
    RELEASE = "release"

    def __str__(self) -> str:
        return str(self.value)
