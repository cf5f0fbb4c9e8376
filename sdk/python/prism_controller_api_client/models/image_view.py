from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ImageView")



@_attrs_define
class ImageView:
    """ An image a project may run: its own, or one shared with it.

        Attributes:
            name (str):
            project (str): The project it belongs to.
            use_as (str): What a booking of the asking project names it by in `spec.image`:
                `NAME` for its own, `OWNER/NAME` for one shared with it.
            digest (str): Its manifest's SHA-256 (`sha256:<hex>`): the image's identity,
                checked by every node that pulls it.
            size_bytes (int): Its blobs' bytes (manifest, config and layers).
            layers (int): Its layers, the base image's first.
            created_by (str):
            created_ms (int):
            from_booking (None | str | Unset): The booking it was saved from.
            shared_with (list[str] | Unset): The projects it is shared with (for its own project only).
     """

    name: str
    project: str
    use_as: str
    digest: str
    size_bytes: int
    layers: int
    created_by: str
    created_ms: int
    from_booking: None | str | Unset = UNSET
    shared_with: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        name = self.name

        project = self.project

        use_as = self.use_as

        digest = self.digest

        size_bytes = self.size_bytes

        layers = self.layers

        created_by = self.created_by

        created_ms = self.created_ms

        from_booking: None | str | Unset
        if isinstance(self.from_booking, Unset):
            from_booking = UNSET
        else:
            from_booking = self.from_booking

        shared_with: list[str] | Unset = UNSET
        if not isinstance(self.shared_with, Unset):
            shared_with = self.shared_with




        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "name": name,
            "project": project,
            "use_as": use_as,
            "digest": digest,
            "size_bytes": size_bytes,
            "layers": layers,
            "created_by": created_by,
            "created_ms": created_ms,
        })
        if from_booking is not UNSET:
            field_dict["from_booking"] = from_booking
        if shared_with is not UNSET:
            field_dict["shared_with"] = shared_with

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        name = d.pop("name")

        project = d.pop("project")

        use_as = d.pop("use_as")

        digest = d.pop("digest")

        size_bytes = d.pop("size_bytes")

        layers = d.pop("layers")

        created_by = d.pop("created_by")

        created_ms = d.pop("created_ms")

        def _parse_from_booking(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        from_booking = _parse_from_booking(d.pop("from_booking", UNSET))


        shared_with = cast(list[str], d.pop("shared_with", UNSET))


        image_view = cls(
            name=name,
            project=project,
            use_as=use_as,
            digest=digest,
            size_bytes=size_bytes,
            layers=layers,
            created_by=created_by,
            created_ms=created_ms,
            from_booking=from_booking,
            shared_with=shared_with,
        )


        image_view.additional_properties = d
        return image_view

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
