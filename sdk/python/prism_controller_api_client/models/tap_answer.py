from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.tap_view import TapView





T = TypeVar("T", bound="TapAnswer")



@_attrs_define
class TapAnswer:
    """ What a trace or capture recorded, in time order.

        Attributes:
            packets (list[TapView]):
            timed_out (bool): Fewer than asked: the time ran out first.
     """

    packets: list[TapView]
    timed_out: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.tap_view import TapView # noqa: PLC0415
        packets = []
        for packets_item_data in self.packets:
            packets_item = packets_item_data.to_dict()
            packets.append(packets_item)



        timed_out = self.timed_out


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "packets": packets,
            "timed_out": timed_out,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.tap_view import TapView # noqa: PLC0415
        d = dict(src_dict)
        packets = []
        _packets = d.pop("packets")
        for packets_item_data in (_packets):
            packets_item = TapView.from_dict(packets_item_data)



            packets.append(packets_item)


        timed_out = d.pop("timed_out")

        tap_answer = cls(
            packets=packets,
            timed_out=timed_out,
        )


        tap_answer.additional_properties = d
        return tap_answer

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
