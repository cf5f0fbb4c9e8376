from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="QuotaDetail")



@_attrs_define
class QuotaDetail:
    """ Which quota refused a request (OpenStack's {used, limit} with what was
    requested beside them).

        Attributes:
            resource (str): `hw_networks`, `sw_networks`, `bandwidth_mbps` or `lease_hours`.
            limit (int):
            used (int):
            requested (int):
     """

    resource: str
    limit: int
    used: int
    requested: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        resource = self.resource

        limit = self.limit

        used = self.used

        requested = self.requested


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "resource": resource,
            "limit": limit,
            "used": used,
            "requested": requested,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        resource = d.pop("resource")

        limit = d.pop("limit")

        used = d.pop("used")

        requested = d.pop("requested")

        quota_detail = cls(
            resource=resource,
            limit=limit,
            used=used,
            requested=requested,
        )


        quota_detail.additional_properties = d
        return quota_detail

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
