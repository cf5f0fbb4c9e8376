from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PublicAddressRequest")



@_attrs_define
class PublicAddressRequest:
    """ Lease a public address for a host of a booking.

        Attributes:
            booking (str): The booking's id (a provisioned network of the project).
            internal (str): The host inside the network the address stands for: its IPv4
                address (a routed network: a public address) or its MAC (a bridge
                network on one node: a public MAC, from the node's MAC pool).
            node (None | str | Unset): The node whose pool the address comes from: for a network spanning
                nodes, the node of the part the host is on (required); else the
                booking's node.
            lease_s (int | None | Unset): The lease's length (default and most: to the booking's end).
     """

    booking: str
    internal: str
    node: None | str | Unset = UNSET
    lease_s: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        booking = self.booking

        internal = self.internal

        node: None | str | Unset
        if isinstance(self.node, Unset):
            node = UNSET
        else:
            node = self.node

        lease_s: int | None | Unset
        if isinstance(self.lease_s, Unset):
            lease_s = UNSET
        else:
            lease_s = self.lease_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "booking": booking,
            "internal": internal,
        })
        if node is not UNSET:
            field_dict["node"] = node
        if lease_s is not UNSET:
            field_dict["lease_s"] = lease_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking = d.pop("booking")

        internal = d.pop("internal")

        def _parse_node(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        node = _parse_node(d.pop("node", UNSET))


        def _parse_lease_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        lease_s = _parse_lease_s(d.pop("lease_s", UNSET))


        public_address_request = cls(
            booking=booking,
            internal=internal,
            node=node,
            lease_s=lease_s,
        )

        return public_address_request

