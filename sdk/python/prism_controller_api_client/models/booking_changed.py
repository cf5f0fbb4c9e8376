from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.booking import Booking
  from ..models.booking_change_view import BookingChangeView





T = TypeVar("T", bound="BookingChanged")



@_attrs_define
class BookingChanged:
    """ `PATCH …/bookings/{id}`'s answer: the booking as changed and the
    change as its history keeps it (with `dry_run`, both as they would be).

        Attributes:
            booking (Booking): A booking: a lease on a resource, with a UUID.
            change (BookingChangeView): One accepted change, as the booking's history shows it.
            dry_run (bool | Unset): Nothing was changed: the change was only checked.
     """

    booking: Booking
    change: BookingChangeView
    dry_run: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.booking import Booking # noqa: PLC0415
        from ..models.booking_change_view import BookingChangeView # noqa: PLC0415
        booking = self.booking.to_dict()

        change = self.change.to_dict()

        dry_run = self.dry_run


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "booking": booking,
            "change": change,
        })
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking import Booking # noqa: PLC0415
        from ..models.booking_change_view import BookingChangeView # noqa: PLC0415
        d = dict(src_dict)
        booking = Booking.from_dict(d.pop("booking"))




        change = BookingChangeView.from_dict(d.pop("change"))




        dry_run = d.pop("dry_run", UNSET)

        booking_changed = cls(
            booking=booking,
            change=change,
            dry_run=dry_run,
        )


        booking_changed.additional_properties = d
        return booking_changed

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
