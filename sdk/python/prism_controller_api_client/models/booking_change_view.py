from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

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
            strategy (None | str | Unset): How the slot takes its new module (`partial` or `fallback`; absent:
                the node's default), when the change loads one.
            modelled_ms (float | None | Unset): The device model's time to load the booking's slot with its new
                module (a model: Prism runs no FPGA; the slowest of its nodes),
                when the change loads one: another `forwarding` mode in hardware,
                or a move into hardware. With `partial` the network forwards
                nothing for that long; with `fallback` the software tier serves it.
     """

    generation: int
    at_ms: int
    user: str
    fields: list[str]
    before: BookingChangeViewBefore
    after: BookingChangeViewAfter
    strategy: None | str | Unset = UNSET
    modelled_ms: float | None | Unset = UNSET
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

        strategy: None | str | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        else:
            strategy = self.strategy

        modelled_ms: float | None | Unset
        if isinstance(self.modelled_ms, Unset):
            modelled_ms = UNSET
        else:
            modelled_ms = self.modelled_ms


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
        if strategy is not UNSET:
            field_dict["strategy"] = strategy
        if modelled_ms is not UNSET:
            field_dict["modelled_ms"] = modelled_ms

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




        def _parse_strategy(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        strategy = _parse_strategy(d.pop("strategy", UNSET))


        def _parse_modelled_ms(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        modelled_ms = _parse_modelled_ms(d.pop("modelled_ms", UNSET))


        booking_change_view = cls(
            generation=generation,
            at_ms=at_ms,
            user=user,
            fields=fields,
            before=before,
            after=after,
            strategy=strategy,
            modelled_ms=modelled_ms,
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
