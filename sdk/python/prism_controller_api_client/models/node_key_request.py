from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NodeKeyRequest")



@_attrs_define
class NodeKeyRequest:
    """ 
        Attributes:
            node (str): The name the node will register under (`prism node --node-name`).
     """

    node: str





    def to_dict(self) -> dict[str, Any]:
        node = self.node


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "node": node,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        node = d.pop("node")

        node_key_request = cls(
            node=node,
        )

        return node_key_request

