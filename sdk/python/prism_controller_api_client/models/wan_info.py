from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="WanInfo")



@_attrs_define
class WanInfo:
    """ A node's WAN port: where other nodes send its networks' tunnels.

        Attributes:
            port (str): The port's name.
            address (str): Its IPv4 address on the wide area.
            mac (str): Its MAC address (the next hop of tunnels to it on a wide-area Ethernet).
     """

    port: str
    address: str
    mac: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        port = self.port

        address = self.address

        mac = self.mac


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "port": port,
            "address": address,
            "mac": mac,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        port = d.pop("port")

        address = d.pop("address")

        mac = d.pop("mac")

        wan_info = cls(
            port=port,
            address=address,
            mac=mac,
        )


        wan_info.additional_properties = d
        return wan_info

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
