from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="VlanMember")



@_attrs_define
class VlanMember:
    """ A project invited to a shared VLAN, as its owner sees it.

        Attributes:
            project (str): The invited project's name.
            invited_by (str): Who invited it (a user of the owning project).
            invited_ms (int):
     """

    project: str
    invited_by: str
    invited_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        project = self.project

        invited_by = self.invited_by

        invited_ms = self.invited_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "project": project,
            "invited_by": invited_by,
            "invited_ms": invited_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        project = d.pop("project")

        invited_by = d.pop("invited_by")

        invited_ms = d.pop("invited_ms")

        vlan_member = cls(
            project=project,
            invited_by=invited_by,
            invited_ms=invited_ms,
        )


        vlan_member.additional_properties = d
        return vlan_member

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
