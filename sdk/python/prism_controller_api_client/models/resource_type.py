from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.generic_op import GenericOp
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ResourceType")



@_attrs_define
class ResourceType:
    """ 
        Attributes:
            name (str):
            description (str):
            schema (Any): A JSON Schema (draft 2020-12 unless `$schema` says otherwise) that a
                booking's `spec` must satisfy.
            operations (list[GenericOp]):
            builtin (bool | Unset): Built into the controller (not removable).
     """

    name: str
    description: str
    schema: Any
    operations: list[GenericOp]
    builtin: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description = self.description

        schema = self.schema

        operations = []
        for operations_item_data in self.operations:
            operations_item = operations_item_data.value
            operations.append(operations_item)



        builtin = self.builtin


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "name": name,
            "description": description,
            "schema": schema,
            "operations": operations,
        })
        if builtin is not UNSET:
            field_dict["builtin"] = builtin

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        description = d.pop("description")

        schema = d.pop("schema")

        operations = []
        _operations = d.pop("operations")
        for operations_item_data in (_operations):
            operations_item = GenericOp(operations_item_data)



            operations.append(operations_item)


        builtin = d.pop("builtin", UNSET)

        resource_type = cls(
            name=name,
            description=description,
            schema=schema,
            operations=operations,
            builtin=builtin,
        )

        return resource_type

