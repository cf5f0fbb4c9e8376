from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.url_method import UrlMethod






T = TypeVar("T", bound="PresignedUrl")



@_attrs_define
class PresignedUrl:
    """ A URL the controller signed: one request to one object until it
    expires, no other credential needed.

        Attributes:
            url (str):
            method (UrlMethod): What a signed URL may do.
            expires_ms (int):
     """

    url: str
    method: UrlMethod
    expires_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        url = self.url

        method = self.method.value

        expires_ms = self.expires_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "url": url,
            "method": method,
            "expires_ms": expires_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        url = d.pop("url")

        method = UrlMethod(d.pop("method"))




        expires_ms = d.pop("expires_ms")

        presigned_url = cls(
            url=url,
            method=method,
            expires_ms=expires_ms,
        )


        presigned_url.additional_properties = d
        return presigned_url

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
