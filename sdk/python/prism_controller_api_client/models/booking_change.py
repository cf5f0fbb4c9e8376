from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.booking_change_spec_type_0 import BookingChangeSpecType0
  from ..models.part_request import PartRequest





T = TypeVar("T", bound="BookingChange")



@_attrs_define
class BookingChange:
    """ What to change in a network booking. Fields left out stay as they are;
    the change is checked whole before anything moves, and a refusal
    names its field and changes nothing.

        Attributes:
            generation (int | None | Unset): The booking's generation this change is made from: if the booking
                has changed since, the change is refused (409, `conflict`) with
                the generation it lost to. Left out: made from whatever is current.
            spec (BookingChangeSpecType0 | None | Unset): Spec fields replaced whole: `route`, `rule`, `default_action`
                (`null` removes one), `tier` (`hardware` or `software`).
            bandwidth_mbps (int | None | Unset): The guaranteed rate, Mbit/s (the project's quota and the node's
                capacity checked first).
            parts (list[PartRequest] | None | Unset): A network spanning nodes: its parts, replaced whole (two to
                sixteen; a part on a node it already has keeps its tunnel address,
                a node left out loses its part, a new node gets one; the parts kept
                forward on, their tunnels to the others updated as tables).
            dry_run (bool | Unset): Checked whole and answered as if made (the modelled time
                included), but nothing is changed.
     """

    generation: int | None | Unset = UNSET
    spec: BookingChangeSpecType0 | None | Unset = UNSET
    bandwidth_mbps: int | None | Unset = UNSET
    parts: list[PartRequest] | None | Unset = UNSET
    dry_run: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.booking_change_spec_type_0 import BookingChangeSpecType0 # noqa: PLC0415
        from ..models.part_request import PartRequest # noqa: PLC0415
        generation: int | None | Unset
        if isinstance(self.generation, Unset):
            generation = UNSET
        else:
            generation = self.generation

        spec: dict[str, Any] | None | Unset
        if isinstance(self.spec, Unset):
            spec = UNSET
        elif isinstance(self.spec, BookingChangeSpecType0):
            spec = self.spec.to_dict()
        else:
            spec = self.spec

        bandwidth_mbps: int | None | Unset
        if isinstance(self.bandwidth_mbps, Unset):
            bandwidth_mbps = UNSET
        else:
            bandwidth_mbps = self.bandwidth_mbps

        parts: list[dict[str, Any]] | None | Unset
        if isinstance(self.parts, Unset):
            parts = UNSET
        elif isinstance(self.parts, list):
            parts = []
            for parts_type_0_item_data in self.parts:
                parts_type_0_item = parts_type_0_item_data.to_dict()
                parts.append(parts_type_0_item)


        else:
            parts = self.parts

        dry_run = self.dry_run


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if generation is not UNSET:
            field_dict["generation"] = generation
        if spec is not UNSET:
            field_dict["spec"] = spec
        if bandwidth_mbps is not UNSET:
            field_dict["bandwidth_mbps"] = bandwidth_mbps
        if parts is not UNSET:
            field_dict["parts"] = parts
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.booking_change_spec_type_0 import BookingChangeSpecType0 # noqa: PLC0415
        from ..models.part_request import PartRequest # noqa: PLC0415
        d = dict(src_dict)
        def _parse_generation(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        generation = _parse_generation(d.pop("generation", UNSET))


        def _parse_spec(data: object) -> BookingChangeSpecType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                spec_type_0 = BookingChangeSpecType0.from_dict(data)



                return spec_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(BookingChangeSpecType0 | None | Unset, data)

        spec = _parse_spec(d.pop("spec", UNSET))


        def _parse_bandwidth_mbps(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        bandwidth_mbps = _parse_bandwidth_mbps(d.pop("bandwidth_mbps", UNSET))


        def _parse_parts(data: object) -> list[PartRequest] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                parts_type_0 = []
                _parts_type_0 = data
                for parts_type_0_item_data in (_parts_type_0):
                    parts_type_0_item = PartRequest.from_dict(parts_type_0_item_data)



                    parts_type_0.append(parts_type_0_item)

                return parts_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[PartRequest] | None | Unset, data)

        parts = _parse_parts(d.pop("parts", UNSET))


        dry_run = d.pop("dry_run", UNSET)

        booking_change = cls(
            generation=generation,
            spec=spec,
            bandwidth_mbps=bandwidth_mbps,
            parts=parts,
            dry_run=dry_run,
        )

        return booking_change

