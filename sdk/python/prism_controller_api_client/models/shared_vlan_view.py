from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="SharedVlanView")



@_attrs_define
class SharedVlanView:
    """ A shared VLAN a project is invited to, as the invited project sees
    it: enough to attach to it (`spec.attach[].network` =
    `OWNER/NAME`), nothing else of the owner's.

        Attributes:
            id (str): The shared VLAN's booking id.
            name (str): Its name in the owning project.
            owner (str): The owning project's name.
            attach_as (str): What a processing booking attaches to: `OWNER/NAME`.
            invited_ms (int):
            node (None | str | Unset): The node it is on.
            vlan (int | None | Unset):
     """

    id: str
    name: str
    owner: str
    attach_as: str
    invited_ms: int
    node: None | str | Unset = UNSET
    vlan: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        owner = self.owner

        attach_as = self.attach_as

        invited_ms = self.invited_ms

        node: None | str | Unset
        if isinstance(self.node, Unset):
            node = UNSET
        else:
            node = self.node

        vlan: int | None | Unset
        if isinstance(self.vlan, Unset):
            vlan = UNSET
        else:
            vlan = self.vlan


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "id": id,
            "name": name,
            "owner": owner,
            "attach_as": attach_as,
            "invited_ms": invited_ms,
        })
        if node is not UNSET:
            field_dict["node"] = node
        if vlan is not UNSET:
            field_dict["vlan"] = vlan

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        owner = d.pop("owner")

        attach_as = d.pop("attach_as")

        invited_ms = d.pop("invited_ms")

        def _parse_node(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        node = _parse_node(d.pop("node", UNSET))


        def _parse_vlan(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vlan = _parse_vlan(d.pop("vlan", UNSET))


        shared_vlan_view = cls(
            id=id,
            name=name,
            owner=owner,
            attach_as=attach_as,
            invited_ms=invited_ms,
            node=node,
            vlan=vlan,
        )


        shared_vlan_view.additional_properties = d
        return shared_vlan_view

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
