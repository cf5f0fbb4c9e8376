from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.wan_info import WanInfo





T = TypeVar("T", bound="NodeView")



@_attrs_define
class NodeView:
    """ 
        Attributes:
            id (str):
            name (str):
            address (str):
            device (str): The node's device profile (a model of an FPGA).
            slots (int):
            hw_mbps (int):
            sw_mbps (int):
            ports (list[str]):
            generation (int): Desired state's generation, and the last the node converged to.
            applied_generation (int):
            last_seen_ms (int):
            up (bool): Heard from within the node timeout.
            used_slots (int): Booked on it: hardware slots, and Mbit/s per tier.
            used_hw_mbps (int):
            used_sw_mbps (int):
            last_error (None | str | Unset):
            wan (None | Unset | WanInfo):
     """

    id: str
    name: str
    address: str
    device: str
    slots: int
    hw_mbps: int
    sw_mbps: int
    ports: list[str]
    generation: int
    applied_generation: int
    last_seen_ms: int
    up: bool
    used_slots: int
    used_hw_mbps: int
    used_sw_mbps: int
    last_error: None | str | Unset = UNSET
    wan: None | Unset | WanInfo = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.wan_info import WanInfo # noqa: PLC0415
        id = self.id

        name = self.name

        address = self.address

        device = self.device

        slots = self.slots

        hw_mbps = self.hw_mbps

        sw_mbps = self.sw_mbps

        ports = self.ports



        generation = self.generation

        applied_generation = self.applied_generation

        last_seen_ms = self.last_seen_ms

        up = self.up

        used_slots = self.used_slots

        used_hw_mbps = self.used_hw_mbps

        used_sw_mbps = self.used_sw_mbps

        last_error: None | str | Unset
        if isinstance(self.last_error, Unset):
            last_error = UNSET
        else:
            last_error = self.last_error

        wan: dict[str, Any] | None | Unset
        if isinstance(self.wan, Unset):
            wan = UNSET
        elif isinstance(self.wan, WanInfo):
            wan = self.wan.to_dict()
        else:
            wan = self.wan


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "address": address,
            "device": device,
            "slots": slots,
            "hw_mbps": hw_mbps,
            "sw_mbps": sw_mbps,
            "ports": ports,
            "generation": generation,
            "applied_generation": applied_generation,
            "last_seen_ms": last_seen_ms,
            "up": up,
            "used_slots": used_slots,
            "used_hw_mbps": used_hw_mbps,
            "used_sw_mbps": used_sw_mbps,
        })
        if last_error is not UNSET:
            field_dict["last_error"] = last_error
        if wan is not UNSET:
            field_dict["wan"] = wan

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.wan_info import WanInfo # noqa: PLC0415
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        address = d.pop("address")

        device = d.pop("device")

        slots = d.pop("slots")

        hw_mbps = d.pop("hw_mbps")

        sw_mbps = d.pop("sw_mbps")

        ports = cast(list[str], d.pop("ports"))


        generation = d.pop("generation")

        applied_generation = d.pop("applied_generation")

        last_seen_ms = d.pop("last_seen_ms")

        up = d.pop("up")

        used_slots = d.pop("used_slots")

        used_hw_mbps = d.pop("used_hw_mbps")

        used_sw_mbps = d.pop("used_sw_mbps")

        def _parse_last_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        last_error = _parse_last_error(d.pop("last_error", UNSET))


        def _parse_wan(data: object) -> None | Unset | WanInfo:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                wan_type_1 = WanInfo.from_dict(data)



                return wan_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WanInfo, data)

        wan = _parse_wan(d.pop("wan", UNSET))


        node_view = cls(
            id=id,
            name=name,
            address=address,
            device=device,
            slots=slots,
            hw_mbps=hw_mbps,
            sw_mbps=sw_mbps,
            ports=ports,
            generation=generation,
            applied_generation=applied_generation,
            last_seen_ms=last_seen_ms,
            up=up,
            used_slots=used_slots,
            used_hw_mbps=used_hw_mbps,
            used_sw_mbps=used_sw_mbps,
            last_error=last_error,
            wan=wan,
        )


        node_view.additional_properties = d
        return node_view

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
