from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="NodeKeyView")



@_attrs_define
class NodeKeyView:
    """ 
        Attributes:
            id (str):
            node (str):
            created_ms (int):
            last_used_ms (int | None | Unset):
            revoked_ms (int | None | Unset):
            key (None | str | Unset): The key itself (`prn_…`): in the answer that makes it, never again.
     """

    id: str
    node: str
    created_ms: int
    last_used_ms: int | None | Unset = UNSET
    revoked_ms: int | None | Unset = UNSET
    key: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        node = self.node

        created_ms = self.created_ms

        last_used_ms: int | None | Unset
        if isinstance(self.last_used_ms, Unset):
            last_used_ms = UNSET
        else:
            last_used_ms = self.last_used_ms

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
            "node": node,
            "created_ms": created_ms,
        })
        if last_used_ms is not UNSET:
            field_dict["last_used_ms"] = last_used_ms
        if revoked_ms is not UNSET:
            field_dict["revoked_ms"] = revoked_ms
        if key is not UNSET:
            field_dict["key"] = key

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        node = d.pop("node")

        created_ms = d.pop("created_ms")

        def _parse_last_used_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_used_ms = _parse_last_used_ms(d.pop("last_used_ms", UNSET))


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


        node_key_view = cls(
            id=id,
            node=node,
            created_ms=created_ms,
            last_used_ms=last_used_ms,
            revoked_ms=revoked_ms,
            key=key,
        )


        node_key_view.additional_properties = d
        return node_key_view

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
