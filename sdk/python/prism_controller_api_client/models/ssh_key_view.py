from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SshKeyView")



@_attrs_define
class SshKeyView:
    """ 
        Attributes:
            id (str):
            name (str):
            public_key (str): `TYPE BASE64` (the comment dropped).
            fingerprint (str): OpenSSH's `SHA256:…` fingerprint.
            created_ms (int):
     """

    id: str
    name: str
    public_key: str
    fingerprint: str
    created_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        public_key = self.public_key

        fingerprint = self.fingerprint

        created_ms = self.created_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "public_key": public_key,
            "fingerprint": fingerprint,
            "created_ms": created_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        public_key = d.pop("public_key")

        fingerprint = d.pop("fingerprint")

        created_ms = d.pop("created_ms")

        ssh_key_view = cls(
            id=id,
            name=name,
            public_key=public_key,
            fingerprint=fingerprint,
            created_ms=created_ms,
        )


        ssh_key_view.additional_properties = d
        return ssh_key_view

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
