from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="AuditEntry")



@_attrs_define
class AuditEntry:
    """ 
        Attributes:
            id (str):
            at_ms (int):
            principal (str): The user name, or `anonymous`.
            method (str):
            path (str):
            status (int):
            note (None | str | Unset): What the call was beyond its method and path: `admin-override:
                project P, RESOURCE` when an administrator acted in a project
                beyond what a membership of theirs would allow (not a member, a
                role without the operation, not the resource's creator or an
                owner).
     """

    id: str
    at_ms: int
    principal: str
    method: str
    path: str
    status: int
    note: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        at_ms = self.at_ms

        principal = self.principal

        method = self.method

        path = self.path

        status = self.status

        note: None | str | Unset
        if isinstance(self.note, Unset):
            note = UNSET
        else:
            note = self.note


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "at_ms": at_ms,
            "principal": principal,
            "method": method,
            "path": path,
            "status": status,
        })
        if note is not UNSET:
            field_dict["note"] = note

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        at_ms = d.pop("at_ms")

        principal = d.pop("principal")

        method = d.pop("method")

        path = d.pop("path")

        status = d.pop("status")

        def _parse_note(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        note = _parse_note(d.pop("note", UNSET))


        audit_entry = cls(
            id=id,
            at_ms=at_ms,
            principal=principal,
            method=method,
            path=path,
            status=status,
            note=note,
        )


        audit_entry.additional_properties = d
        return audit_entry

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
