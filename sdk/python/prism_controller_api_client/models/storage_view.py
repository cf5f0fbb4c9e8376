from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from typing import cast






T = TypeVar("T", bound="StorageView")



@_attrs_define
class StorageView:
    """ A project's bucket on the storage service.

        Attributes:
            endpoint (str): The S3 endpoint (`http(s)://host:port`, path-style requests).
            bucket (str): The project's bucket: read and written with its keys.
            used_bytes (int):
            quota_bytes (int): The service level's `max_storage_bytes`.
            shared_with (list[str]): Projects this bucket is shared with, read-only.
            readable (list[str]): Other projects' buckets shared with this one (read-only).
     """

    endpoint: str
    bucket: str
    used_bytes: int
    quota_bytes: int
    shared_with: list[str]
    readable: list[str]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        endpoint = self.endpoint

        bucket = self.bucket

        used_bytes = self.used_bytes

        quota_bytes = self.quota_bytes

        shared_with = self.shared_with



        readable = self.readable




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "endpoint": endpoint,
            "bucket": bucket,
            "used_bytes": used_bytes,
            "quota_bytes": quota_bytes,
            "shared_with": shared_with,
            "readable": readable,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        endpoint = d.pop("endpoint")

        bucket = d.pop("bucket")

        used_bytes = d.pop("used_bytes")

        quota_bytes = d.pop("quota_bytes")

        shared_with = cast(list[str], d.pop("shared_with"))


        readable = cast(list[str], d.pop("readable"))


        storage_view = cls(
            endpoint=endpoint,
            bucket=bucket,
            used_bytes=used_bytes,
            quota_bytes=quota_bytes,
            shared_with=shared_with,
            readable=readable,
        )


        storage_view.additional_properties = d
        return storage_view

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
