from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Renewed")



@_attrs_define
class Renewed:
    """ What a renewal granted: the service level may clamp it.

        Attributes:
            expires_ms (int):
            clamped (bool): Whether the end granted is earlier than asked.
     """

    expires_ms: int
    clamped: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        expires_ms = self.expires_ms

        clamped = self.clamped


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "expires_ms": expires_ms,
            "clamped": clamped,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        expires_ms = d.pop("expires_ms")

        clamped = d.pop("clamped")

        renewed = cls(
            expires_ms=expires_ms,
            clamped=clamped,
        )


        renewed.additional_properties = d
        return renewed

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
