from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="SaveImageRequest")



@_attrs_define
class SaveImageRequest:
    """ `POST /v1/projects/{project}/images`: save a processing booking's
    file system as image `name`.

        Attributes:
            booking (str): The processing booking's id.
            name (str): The image's name in the project (a-z, 0-9, `.`, `_`, `-`; at most
                63), what a booking's `spec.image` names it by.
     """

    booking: str
    name: str





    def to_dict(self) -> dict[str, Any]:
        booking = self.booking

        name = self.name


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "booking": booking,
            "name": name,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        booking = d.pop("booking")

        name = d.pop("name")

        save_image_request = cls(
            booking=booking,
            name=name,
        )

        return save_image_request

