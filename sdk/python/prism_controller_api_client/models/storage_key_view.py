from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="StorageKeyView")



@_attrs_define
class StorageKeyView:
    """ An S3 key of the project (SigV4: access key ID and secret).

        Attributes:
            access_key (str):
            user (str): Whose key it is.
            created_ms (int):
            secret_key (None | str | Unset): Only when the key is made: the controller keeps no copy (it
                derives it from its master key to sign URLs).
     """

    access_key: str
    user: str
    created_ms: int
    secret_key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        access_key = self.access_key

        user = self.user

        created_ms = self.created_ms

        secret_key: None | str | Unset
        if isinstance(self.secret_key, Unset):
            secret_key = UNSET
        else:
            secret_key = self.secret_key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "access_key": access_key,
            "user": user,
            "created_ms": created_ms,
        })
        if secret_key is not UNSET:
            field_dict["secret_key"] = secret_key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        access_key = d.pop("access_key")

        user = d.pop("user")

        created_ms = d.pop("created_ms")

        def _parse_secret_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret_key = _parse_secret_key(d.pop("secret_key", UNSET))


        storage_key_view = cls(
            access_key=access_key,
            user=user,
            created_ms=created_ms,
            secret_key=secret_key,
        )


        storage_key_view.additional_properties = d
        return storage_key_view

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
