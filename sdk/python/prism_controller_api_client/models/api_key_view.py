from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation import Operation
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ApiKeyView")



@_attrs_define
class ApiKeyView:
    """ 
        Attributes:
            id (str):
            name (str):
            user (str):
            operations (list[Operation]):
            created_ms (int):
            expires_ms (int | None | Unset):
            revoked_ms (int | None | Unset):
            key (None | str | Unset): The secret: only in the answer that creates the key.
     """

    id: str
    name: str
    user: str
    operations: list[Operation]
    created_ms: int
    expires_ms: int | None | Unset = UNSET
    revoked_ms: int | None | Unset = UNSET
    key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        user = self.user

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.value
            operations.append(operations_item)



        created_ms = self.created_ms

        expires_ms: int | None | Unset
        if isinstance(self.expires_ms, Unset):
            expires_ms = UNSET
        else:
            expires_ms = self.expires_ms

        revoked_ms: int | None | Unset
        if isinstance(self.revoked_ms, Unset):
            revoked_ms = UNSET
        else:
            revoked_ms = self.revoked_ms

        key: None | str | Unset
        if isinstance(self.key, Unset):
            key = UNSET
        else:
            key = self.key


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "user": user,
            "operations": operations,
            "created_ms": created_ms,
        })
        if expires_ms is not UNSET:
            field_dict["expires_ms"] = expires_ms
        if revoked_ms is not UNSET:
            field_dict["revoked_ms"] = revoked_ms
        if key is not UNSET:
            field_dict["key"] = key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        user = d.pop("user")

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            operations_item = Operation(operations_item_data)



            operations.append(operations_item)


        created_ms = d.pop("created_ms")

        def _parse_expires_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        expires_ms = _parse_expires_ms(d.pop("expires_ms", UNSET))


        def _parse_revoked_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        revoked_ms = _parse_revoked_ms(d.pop("revoked_ms", UNSET))


        def _parse_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        key = _parse_key(d.pop("key", UNSET))


        api_key_view = cls(
            id=id,
            name=name,
            user=user,
            operations=operations,
            created_ms=created_ms,
            expires_ms=expires_ms,
            revoked_ms=revoked_ms,
            key=key,
        )


        api_key_view.additional_properties = d
        return api_key_view

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
