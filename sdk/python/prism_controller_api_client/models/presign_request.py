from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.url_method import UrlMethod
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PresignRequest")



@_attrs_define
class PresignRequest:
    """ A URL to sign.

        Attributes:
            method (UrlMethod): What a signed URL may do.
            key (str): The object's key in the bucket (`images/base.tar`).
            bucket (None | str | Unset): The bucket: the project's (default) or, for `GET`, one shared
                with it.
            expires_s (int | None | Unset): How long it lives, seconds (1 to 604800; default 3600).
     """

    method: UrlMethod
    key: str
    bucket: None | str | Unset = UNSET
    expires_s: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        method = self.method.value

        key = self.key

        bucket: None | str | Unset
        if isinstance(self.bucket, Unset):
            bucket = UNSET
        else:
            bucket = self.bucket

        expires_s: int | None | Unset
        if isinstance(self.expires_s, Unset):
            expires_s = UNSET
        else:
            expires_s = self.expires_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "method": method,
            "key": key,
        })
        if bucket is not UNSET:
            field_dict["bucket"] = bucket
        if expires_s is not UNSET:
            field_dict["expires_s"] = expires_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        method = UrlMethod(d.pop("method"))




        key = d.pop("key")

        def _parse_bucket(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        bucket = _parse_bucket(d.pop("bucket", UNSET))


        def _parse_expires_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_s = _parse_expires_s(d.pop("expires_s", UNSET))


        presign_request = cls(
            method=method,
            key=key,
            bucket=bucket,
            expires_s=expires_s,
        )

        return presign_request

