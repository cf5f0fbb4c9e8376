from enum import StrEnum

class ErrorCode(StrEnum):
    CONFLICT = "conflict"
    FORBIDDEN = "forbidden"
    INTERNAL = "internal"
    INVALID_INPUT = "invalid_input"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    NODE_FAILED = "node_failed"
    NOT_FOUND = "not_found"
    NO_CAPACITY = "no_capacity"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    QUOTA_EXCEEDED = "quota_exceeded"
    RATE_LIMITED = "rate_limited"
    STORAGE_FULL = "storage_full"
    UNAUTHORIZED = "unauthorized"

    def __str__(self) -> str:
        return str(self.value)
