from enum import StrEnum

class UrlMethod(StrEnum):
    GET = "GET"
    PUT = "PUT"

    def __str__(self) -> str:
        return str(self.value)
