from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast

if TYPE_CHECKING:
  from ..models.slot_view import SlotView





T = TypeVar("T", bound="NodeHardware")



@_attrs_define
class NodeHardware:
    """ A node's hardware tier now. Power is the device profile's model, never
    measured: Prism runs no FPGA.

        Attributes:
            node (str):
            device (str):
            slots (list[SlotView]):
            total_mw (float): The whole device, mW (model).
            device_static_mw (float): The device's static power and its static region's, mW (model).
            static_region_mw (float):
            source (str): Where the model's figures come from.
     """

    node: str
    device: str
    slots: list[SlotView]
    total_mw: float
    device_static_mw: float
    static_region_mw: float
    source: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.slot_view import SlotView # noqa: PLC0415
        node = self.node

        device = self.device

        slots = []
        for slots_item_data in self.slots:
            slots_item = slots_item_data.to_dict()
            slots.append(slots_item)



        total_mw = self.total_mw

        device_static_mw = self.device_static_mw

        static_region_mw = self.static_region_mw

        source = self.source


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "node": node,
            "device": device,
            "slots": slots,
            "total_mw": total_mw,
            "device_static_mw": device_static_mw,
            "static_region_mw": static_region_mw,
            "source": source,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.slot_view import SlotView # noqa: PLC0415
        d = dict(src_dict)
        node = d.pop("node")

        device = d.pop("device")

        slots = []
        _slots = d.pop("slots")
        for slots_item_data in (_slots):
            slots_item = SlotView.from_dict(slots_item_data)



            slots.append(slots_item)


        total_mw = d.pop("total_mw")

        device_static_mw = d.pop("device_static_mw")

        static_region_mw = d.pop("static_region_mw")

        source = d.pop("source")

        node_hardware = cls(
            node=node,
            device=device,
            slots=slots,
            total_mw=total_mw,
            device_static_mw=device_static_mw,
            static_region_mw=static_region_mw,
            source=source,
        )


        node_hardware.additional_properties = d
        return node_hardware

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
