from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation import Operation
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ApiKeyRequest")



@_attrs_define
class ApiKeyRequest:
    """ 
        Attributes:
            name (str):
            operations (list[Operation]): What the key may do: a subset of what its creator may.
            ttl_s (int | None | Unset): Seconds until it expires (default: never).
     """

    name: str
    operations: list[Operation]
    ttl_s: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.value
            operations.append(operations_item)



        ttl_s: int | None | Unset
        if isinstance(self.ttl_s, Unset):
            ttl_s = UNSET
        else:
            ttl_s = self.ttl_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "operations": operations,
        })
        if ttl_s is not UNSET:
            field_dict["ttl_s"] = ttl_s

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            operations_item = Operation(operations_item_data)



            operations.append(operations_item)


        def _parse_ttl_s(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        ttl_s = _parse_ttl_s(d.pop("ttl_s", UNSET))


        api_key_request = cls(
            name=name,
            operations=operations,
            ttl_s=ttl_s,
        )

        return api_key_request

