from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset







T = TypeVar("T", bound="NodeCertificate")



@_attrs_define
class NodeCertificate:
    """ A certificate the controller's CA issued this node.

        Attributes:
            chain_pem (str): The node's certificate then the CA's (PEM).
            ca_pem (str): The CA whose client certificates the node accepts (PEM): the
                controller's.
            not_after_ms (int): When it ends (ms since the Unix epoch, wall clock).
     """

    chain_pem: str
    ca_pem: str
    not_after_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        chain_pem = self.chain_pem

        ca_pem = self.ca_pem

        not_after_ms = self.not_after_ms


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "chain_pem": chain_pem,
            "ca_pem": ca_pem,
            "not_after_ms": not_after_ms,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        chain_pem = d.pop("chain_pem")

        ca_pem = d.pop("ca_pem")

        not_after_ms = d.pop("not_after_ms")

        node_certificate = cls(
            chain_pem=chain_pem,
            ca_pem=ca_pem,
            not_after_ms=not_after_ms,
        )


        node_certificate.additional_properties = d
        return node_certificate

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
