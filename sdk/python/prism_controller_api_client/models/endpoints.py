from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="Endpoints")



@_attrs_define
class Endpoints:
    """ The outer addresses of an IPIP tunnel.

        Attributes:
            src (str): A IPv4 address
            dst (str): A IPv4 address
     """

    src: str
    dst: str





    def to_dict(self) -> dict[str, Any]:
        src = self.src

        dst = self.dst


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "src": src,
            "dst": dst,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        src = d.pop("src")

        dst = d.pop("dst")

        endpoints = cls(
            src=src,
            dst=dst,
        )

        return endpoints

