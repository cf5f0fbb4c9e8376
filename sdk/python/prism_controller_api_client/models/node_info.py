from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.slots_info import SlotsInfo
  from ..models.wan_info import WanInfo





T = TypeVar("T", bound="NodeInfo")



@_attrs_define
class NodeInfo:
    """ The node: device profile, ports, I/O, workers.

        Attributes:
            device (str): The device profile (a model of an FPGA; see `prism profiles`).
            ports (list[str]):
            software_interfaces (list[bool]): Per port, whether it has a software interface (multi-receiver path).
            io (str): `auto`, `xdp` or `packet`.
            workers (int):
            hardware_slots (SlotsInfo): Hardware slots of the node's device profile.
            desired_generation (int | Unset): The generation of the last desired state accepted by
                `PUT /v1/desired` (0: none yet); older ones are refused.
            wan (None | Unset | WanInfo):
            processing_port (None | str | Unset): The port its processing nodes are behind, if it runs them
                (`prism node --processing-port`).
     """

    device: str
    ports: list[str]
    software_interfaces: list[bool]
    io: str
    workers: int
    hardware_slots: SlotsInfo
    desired_generation: int | Unset = UNSET
    wan: None | Unset | WanInfo = UNSET
    processing_port: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.slots_info import SlotsInfo # noqa: PLC0415
        from ..models.wan_info import WanInfo # noqa: PLC0415
        device = self.device

        ports = self.ports



        software_interfaces = self.software_interfaces



        io = self.io

        workers = self.workers

        hardware_slots = self.hardware_slots.to_dict()

        desired_generation = self.desired_generation

        wan: dict[str, Any] | None | Unset
        if isinstance(self.wan, Unset):
            wan = UNSET
        elif isinstance(self.wan, WanInfo):
            wan = self.wan.to_dict()
        else:
            wan = self.wan

        processing_port: None | str | Unset
        if isinstance(self.processing_port, Unset):
            processing_port = UNSET
        else:
            processing_port = self.processing_port


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "device": device,
            "ports": ports,
            "software_interfaces": software_interfaces,
            "io": io,
            "workers": workers,
            "hardware_slots": hardware_slots,
        })
        if desired_generation is not UNSET:
            field_dict["desired_generation"] = desired_generation
        if wan is not UNSET:
            field_dict["wan"] = wan
        if processing_port is not UNSET:
            field_dict["processing_port"] = processing_port

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.slots_info import SlotsInfo # noqa: PLC0415
        from ..models.wan_info import WanInfo # noqa: PLC0415
        d = dict(src_dict)
        device = d.pop("device")

        ports = cast(list[str], d.pop("ports"))


        software_interfaces = cast(list[bool], d.pop("software_interfaces"))


        io = d.pop("io")

        workers = d.pop("workers")

        hardware_slots = SlotsInfo.from_dict(d.pop("hardware_slots"))




        desired_generation = d.pop("desired_generation", UNSET)

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


        def _parse_processing_port(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        processing_port = _parse_processing_port(d.pop("processing_port", UNSET))


        node_info = cls(
            device=device,
            ports=ports,
            software_interfaces=software_interfaces,
            io=io,
            workers=workers,
            hardware_slots=hardware_slots,
            desired_generation=desired_generation,
            wan=wan,
            processing_port=processing_port,
        )


        node_info.additional_properties = d
        return node_info

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
