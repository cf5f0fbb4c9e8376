from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="LoginRequest")



@_attrs_define
class LoginRequest:
    """ 
        Attributes:
            user (str):
            password (str):
            project (None | str | Unset): Scope the token to one project (recommended); without it the token
                acts in every project the user belongs to.
            ttl_s (int | None | Unset): Seconds (default 3600, at most 86400).
     """

    user: str
    password: str
    project: None | str | Unset = UNSET
    ttl_s: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        user = self.user

        password = self.password

        project: None | str | Unset
        if isinstance(self.project, Unset):
            project = UNSET
        else:
            project = self.project

        ttl_s: int | None | Unset
        if isinstance(self.ttl_s, Unset):
            ttl_s = UNSET
        else:
            ttl_s = self.ttl_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "user": user,
            "password": password,
        })
        if project is not UNSET:
            field_dict["project"] = project
        if ttl_s is not UNSET:
            field_dict["ttl_s"] = ttl_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user = d.pop("user")

        password = d.pop("password")

        def _parse_project(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project = _parse_project(d.pop("project", UNSET))


        def _parse_ttl_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_s = _parse_ttl_s(d.pop("ttl_s", UNSET))


        login_request = cls(
            user=user,
            password=password,
            project=project,
            ttl_s=ttl_s,
        )

        return login_request

