from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="ProjectRequest")



@_attrs_define
class ProjectRequest:
    """ 
        Attributes:
            name (str):
            service_level (str):
            owner (str): The user who becomes its owner.
     """

    name: str
    service_level: str
    owner: str





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        service_level = self.service_level

        owner = self.owner


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "service_level": service_level,
            "owner": owner,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        service_level = d.pop("service_level")

        owner = d.pop("owner")

        project_request = cls(
            name=name,
            service_level=service_level,
            owner=owner,
        )

        return project_request

