from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="NodeRequest")



@_attrs_define
class NodeRequest:
    """ 
        Attributes:
            name (str):
            address (str): The node API's TCP address (`prism node --api-listen`).
            hw_mbps (int | Unset): Aggregate bandwidth of its hardware and software tiers, Mbit/s
                (paper 000: 1000 and 100).
            sw_mbps (int | Unset):
     """

    name: str
    address: str
    hw_mbps: int | Unset = UNSET
    sw_mbps: int | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        address = self.address

        hw_mbps = self.hw_mbps

        sw_mbps = self.sw_mbps


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "address": address,
        })
        if hw_mbps is not UNSET:
            field_dict["hw_mbps"] = hw_mbps
        if sw_mbps is not UNSET:
            field_dict["sw_mbps"] = sw_mbps

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        address = d.pop("address")

        hw_mbps = d.pop("hw_mbps", UNSET)

        sw_mbps = d.pop("sw_mbps", UNSET)

        node_request = cls(
            name=name,
            address=address,
            hw_mbps=hw_mbps,
            sw_mbps=sw_mbps,
        )

        return node_request

