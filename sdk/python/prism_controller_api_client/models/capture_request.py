from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="CaptureRequest")



@_attrs_define
class CaptureRequest:
    """ Capture the next frames of a booking's network (a pcapng file).

        Attributes:
            count (int): Frames (1 to 1,000); ingress and egress count one each, at most
                half of them (rounded up) at ingress.
            snaplen (int | None | Unset): Bytes kept a frame (default and at most 2,048).
            timeout_ms (int | None | Unset): How long to wait for them, ms (default 5,000, at most 30,000).
     """

    count: int
    snaplen: int | None | Unset = UNSET
    timeout_ms: int | None | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        count = self.count

        snaplen: int | None | Unset
        if isinstance(self.snaplen, Unset):
            snaplen = UNSET
        else:
            snaplen = self.snaplen

        timeout_ms: int | None | Unset
        if isinstance(self.timeout_ms, Unset):
            timeout_ms = UNSET
        else:
            timeout_ms = self.timeout_ms


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "count": count,
        })
        if snaplen is not UNSET:
            field_dict["snaplen"] = snaplen
        if timeout_ms is not UNSET:
            field_dict["timeout_ms"] = timeout_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        count = d.pop("count")

        def _parse_snaplen(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        snaplen = _parse_snaplen(d.pop("snaplen", UNSET))


        def _parse_timeout_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        timeout_ms = _parse_timeout_ms(d.pop("timeout_ms", UNSET))


        capture_request = cls(
            count=count,
            snaplen=snaplen,
            timeout_ms=timeout_ms,
        )

        return capture_request

