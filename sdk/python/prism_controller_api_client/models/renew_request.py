from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="RenewRequest")



@_attrs_define
class RenewRequest:
    """ A renewal: a new end, in seconds from now.

        Attributes:
            lease_s (int):
     """

    lease_s: int





    def to_dict(self) -> dict[str, Any]:
        lease_s = self.lease_s


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "lease_s": lease_s,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        lease_s = d.pop("lease_s")

        renew_request = cls(
            lease_s=lease_s,
        )

        return renew_request

