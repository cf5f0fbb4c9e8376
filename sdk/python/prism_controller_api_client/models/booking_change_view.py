from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.booking_change_view_after import BookingChangeViewAfter
  from ..models.booking_change_view_before import BookingChangeViewBefore





T = TypeVar("T", bound="BookingChangeView")



@_attrs_define
class BookingChangeView:
    """ One accepted change, as the booking's history shows it.

        Attributes:
            generation (int): The booking's generation this change made.
            at_ms (int):
            user (str): Who made it.
            fields (list[str]): The fields it changed (`spec.route`, `bandwidth_mbps`).
            before (BookingChangeViewBefore): Each changed field's value before and after.
            after (BookingChangeViewAfter):
     """

    generation: int
    at_ms: int
    user: str
    fields: list[str]
    before: BookingChangeViewBefore
    after: BookingChangeViewAfter
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.booking_change_view_after import BookingChangeViewAfter # noqa: PLC0415
        from ..models.booking_change_view_before import BookingChangeViewBefore # noqa: PLC0415
        generation = self.generation

        at_ms = self.at_ms

        user = self.user

        fields = self.fields



        before = self.before.to_dict()

        after = self.after.to_dict()


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "generation": generation,
            "at_ms": at_ms,
            "user": user,
            "fields": fields,
            "before": before,
            "after": after,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_change_view_after import BookingChangeViewAfter # noqa: PLC0415
        from ..models.booking_change_view_before import BookingChangeViewBefore # noqa: PLC0415
        d = dict(src_dict)
        generation = d.pop("generation")

        at_ms = d.pop("at_ms")

        user = d.pop("user")

        fields = cast(list[str], d.pop("fields"))


        before = BookingChangeViewBefore.from_dict(d.pop("before"))




        after = BookingChangeViewAfter.from_dict(d.pop("after"))




        booking_change_view = cls(
            generation=generation,
            at_ms=at_ms,
            user=user,
            fields=fields,
            before=before,
            after=after,
        )


        booking_change_view.additional_properties = d
        return booking_change_view

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
