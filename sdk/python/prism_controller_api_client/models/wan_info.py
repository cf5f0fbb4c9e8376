from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="WanInfo")



@_attrs_define
class WanInfo:
    """ A node's WAN port: where other nodes send its networks' tunnels.

        Attributes:
            port (str): The port's name.
            address (str): Its IPv4 address on the wide area.
            mac (str): Its MAC address (the next hop of tunnels to it on a wide-area Ethernet).
            next_hop (None | str | Unset): The MAC of the router beyond it: where the gateway sends what
                leaves for the Internet (NAT, public addresses).
            public (None | str | Unset): The node's pool of public addresses (CIDR), leased through the
                controller.
            public_macs (None | str | Unset): The node's pool of public MACs (`02:0b:00:00:00:00/40`), leased
                through the controller for hosts of bridge networks.
     """

    port: str
    address: str
    mac: str
    next_hop: None | str | Unset = UNSET
    public: None | str | Unset = UNSET
    public_macs: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        port = self.port

        address = self.address

        mac = self.mac

        next_hop: None | str | Unset
        if isinstance(self.next_hop, Unset):
            next_hop = UNSET
        else:
            next_hop = self.next_hop

        public: None | str | Unset
        if isinstance(self.public, Unset):
            public = UNSET
        else:
            public = self.public

        public_macs: None | str | Unset
        if isinstance(self.public_macs, Unset):
            public_macs = UNSET
        else:
            public_macs = self.public_macs


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "port": port,
            "address": address,
            "mac": mac,
        })
        if next_hop is not UNSET:
            field_dict["next_hop"] = next_hop
        if public is not UNSET:
            field_dict["public"] = public
        if public_macs is not UNSET:
            field_dict["public_macs"] = public_macs

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        port = d.pop("port")

        address = d.pop("address")

        mac = d.pop("mac")

        def _parse_next_hop(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        next_hop = _parse_next_hop(d.pop("next_hop", UNSET))


        def _parse_public(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        public = _parse_public(d.pop("public", UNSET))


        def _parse_public_macs(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        public_macs = _parse_public_macs(d.pop("public_macs", UNSET))


        wan_info = cls(
            port=port,
            address=address,
            mac=mac,
            next_hop=next_hop,
            public=public,
            public_macs=public_macs,
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
