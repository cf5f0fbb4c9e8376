from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast






T = TypeVar("T", bound="ControllerCertView")



@_attrs_define
class ControllerCertView:
    """ A client certificate a controller replica presents to nodes (made by
    the CA, remade daily): revoke one whose key may have leaked, and every
    node refuses it within a heartbeat (the revocation list the heartbeat
    carries); the replica using it takes a new one at once.

        Attributes:
            serial (str): Its serial number, in hex.
            replica (str): The replica that made it (a UUID of its process).
            created_ms (int):
            not_after_ms (int):
            revoked_ms (int | None | Unset):
     """

    serial: str
    replica: str
    created_ms: int
    not_after_ms: int
    revoked_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        serial = self.serial

        replica = self.replica

        created_ms = self.created_ms

        not_after_ms = self.not_after_ms

        revoked_ms: int | None | Unset
        if isinstance(self.revoked_ms, Unset):
            revoked_ms = UNSET
        else:
            revoked_ms = self.revoked_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "serial": serial,
            "replica": replica,
            "created_ms": created_ms,
            "not_after_ms": not_after_ms,
        })
        if revoked_ms is not UNSET:
            field_dict["revoked_ms"] = revoked_ms

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        serial = d.pop("serial")

        replica = d.pop("replica")

        created_ms = d.pop("created_ms")

        not_after_ms = d.pop("not_after_ms")

        def _parse_revoked_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        revoked_ms = _parse_revoked_ms(d.pop("revoked_ms", UNSET))


        controller_cert_view = cls(
            serial=serial,
            replica=replica,
            created_ms=created_ms,
            not_after_ms=not_after_ms,
            revoked_ms=revoked_ms,
        )


        controller_cert_view.additional_properties = d
        return controller_cert_view

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
