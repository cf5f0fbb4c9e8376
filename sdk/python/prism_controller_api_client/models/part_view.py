from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="PartView")



@_attrs_define
class PartView:
    """ A part of a booked network.

        Attributes:
            node (str):
            prefixes (list[str]): The prefixes the other parts route to it.
            tunnel (None | str | Unset): Its tunnel source address on the wide area (a routed network's).
     """

    node: str
    prefixes: list[str]
    tunnel: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        node = self.node

        prefixes = self.prefixes



        tunnel: None | str | Unset
        if isinstance(self.tunnel, Unset):
            tunnel = UNSET
        else:
            tunnel = self.tunnel


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "node": node,
            "prefixes": prefixes,
        })
        if tunnel is not UNSET:
            field_dict["tunnel"] = tunnel

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node = d.pop("node")

        prefixes = cast(list[str], d.pop("prefixes"))


        def _parse_tunnel(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tunnel = _parse_tunnel(d.pop("tunnel", UNSET))


        part_view = cls(
            node=node,
            prefixes=prefixes,
            tunnel=tunnel,
        )


        part_view.additional_properties = d
        return part_view

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
