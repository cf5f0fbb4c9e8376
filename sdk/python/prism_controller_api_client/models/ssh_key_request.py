from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SshKeyRequest")



@_attrs_define
class SshKeyRequest:
    """ A public key the user's processing nodes accept for root's ssh
    (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.

        Attributes:
            name (str): Unique among the user's keys.
            public_key (str):
     """

    name: str
    public_key: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        public_key = self.public_key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "public_key": public_key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        public_key = d.pop("public_key")

        ssh_key_request = cls(
            name=name,
            public_key=public_key,
        )

        return ssh_key_request

