from enum import StrEnum

class Operation(StrEnum):
    BOOKINGS_ACTION = "bookings.action"
    BOOKINGS_CHANGE = "bookings.change"
    BOOKINGS_CREATE = "bookings.create"
    BOOKINGS_READ = "bookings.read"
    BOOKINGS_RELEASE = "bookings.release"
    BOOKINGS_RENEW = "bookings.renew"
    KEYS_MANAGE = "keys.manage"
    MEMBERS_MANAGE = "members.manage"
    USAGE_READ = "usage.read"

    def __str__(self) -> str:
        return str(self.value)
