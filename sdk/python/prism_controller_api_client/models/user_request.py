from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset






T = TypeVar("T", bound="UserRequest")



@_attrs_define
class UserRequest:
    """ 
        Attributes:
            name (str):
            password (str):
            admin (bool | Unset):
     """

    name: str
    password: str
    admin: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        password = self.password

        admin = self.admin


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "password": password,
        })
        if admin is not UNSET:
            field_dict["admin"] = admin

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        password = d.pop("password")

        admin = d.pop("admin", UNSET)

        user_request = cls(
            name=name,
            password=password,
            admin=admin,
        )

        return user_request

