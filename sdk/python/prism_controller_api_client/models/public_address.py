from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PublicAddress")



@_attrs_define
class PublicAddress:
    """ A public address's lease.

        Attributes:
            address (str): An IPv4 address (`kind` "ipv4"), or a MAC (`kind` "mac": a public
                MAC standing for a bridge network's host).
            kind (str):
            booking (str):
            node (str):
            internal (str):
            user (str):
            created_ms (int):
            expires_ms (int):
            released_ms (int | None | Unset):
     """

    address: str
    kind: str
    booking: str
    node: str
    internal: str
    user: str
    created_ms: int
    expires_ms: int
    released_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        address = self.address

        kind = self.kind

        booking = self.booking

        node = self.node

        internal = self.internal

        user = self.user

        created_ms = self.created_ms

        expires_ms = self.expires_ms

        released_ms: int | None | Unset
        if isinstance(self.released_ms, Unset):
            released_ms = UNSET
        else:
            released_ms = self.released_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "address": address,
            "kind": kind,
            "booking": booking,
            "node": node,
            "internal": internal,
            "user": user,
            "created_ms": created_ms,
            "expires_ms": expires_ms,
        })
        if released_ms is not UNSET:
            field_dict["released_ms"] = released_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        address = d.pop("address")

        kind = d.pop("kind")

        booking = d.pop("booking")

        node = d.pop("node")

        internal = d.pop("internal")

        user = d.pop("user")

        created_ms = d.pop("created_ms")

        expires_ms = d.pop("expires_ms")

        def _parse_released_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        released_ms = _parse_released_ms(d.pop("released_ms", UNSET))


        public_address = cls(
            address=address,
            kind=kind,
            booking=booking,
            node=node,
            internal=internal,
            user=user,
            created_ms=created_ms,
            expires_ms=expires_ms,
            released_ms=released_ms,
        )


        public_address.additional_properties = d
        return public_address

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
