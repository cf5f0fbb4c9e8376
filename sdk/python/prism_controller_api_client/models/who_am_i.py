from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.operation import Operation
from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="WhoAmI")



@_attrs_define
class WhoAmI:
    """ 
        Attributes:
            user (str):
            admin (bool):
            credential (str):
            project (None | str | Unset):
            operations (list[Operation] | None | Unset): An API key's operations; absent for a session.
     """

    user: str
    admin: bool
    credential: str
    project: None | str | Unset = UNSET
    operations: list[Operation] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        user = self.user

        admin = self.admin

        credential = self.credential

        project: None | str | Unset
        if isinstance(self.project, Unset):
            project = UNSET
        else:
            project = self.project

        operations: list[str] | None | Unset
        if isinstance(self.operations, Unset):
            operations = UNSET
        elif isinstance(self.operations, list):
            operations = []
            for operations_type_0_item_data in self.operations:
                operations_type_0_item = operations_type_0_item_data.value
                operations.append(operations_type_0_item)


        else:
            operations = self.operations


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "user": user,
            "admin": admin,
            "credential": credential,
        })
        if project is not UNSET:
            field_dict["project"] = project
        if operations is not UNSET:
            field_dict["operations"] = operations

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        user = d.pop("user")

        admin = d.pop("admin")

        credential = d.pop("credential")

        def _parse_project(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        project = _parse_project(d.pop("project", UNSET))


        def _parse_operations(data: object) -> list[Operation] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                operations_type_0 = []
                _operations_type_0 = data
                for operations_type_0_item_data in (_operations_type_0):
                    operations_type_0_item = Operation(operations_type_0_item_data)



                    operations_type_0.append(operations_type_0_item)

                return operations_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Operation] | None | Unset, data)

        operations = _parse_operations(d.pop("operations", UNSET))


        who_am_i = cls(
            user=user,
            admin=admin,
            credential=credential,
            project=project,
            operations=operations,
        )


        who_am_i.additional_properties = d
        return who_am_i

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
