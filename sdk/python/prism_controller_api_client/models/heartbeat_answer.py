from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.node_certificate import NodeCertificate





T = TypeVar("T", bound="HeartbeatAnswer")



@_attrs_define
class HeartbeatAnswer:
    """ 
        Attributes:
            node_id (str):
            registered (bool): Registered by this heartbeat.
            generation (int): The node's desired state's generation, and the last it reached.
            applied_generation (int):
            every_ms (int): When to send the next heartbeat.
            certificate (NodeCertificate | None | Unset):
            certificate_refused (None | str | Unset): Why none was issued (the controller holds no CA for nodes).
            client_crl (None | str | Unset): The CA's revocation list of the controller's client certificates
                (PEM): a certified node refuses the clients it names.
     """

    node_id: str
    registered: bool
    generation: int
    applied_generation: int
    every_ms: int
    certificate: NodeCertificate | None | Unset = UNSET
    certificate_refused: None | str | Unset = UNSET
    client_crl: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)





    def to_dict(self) -> dict[str, Any]:
        from ..models.node_certificate import NodeCertificate # noqa: PLC0415
        node_id = self.node_id

        registered = self.registered

        generation = self.generation

        applied_generation = self.applied_generation

        every_ms = self.every_ms

        certificate: dict[str, Any] | None | Unset
        if isinstance(self.certificate, Unset):
            certificate = UNSET
        elif isinstance(self.certificate, NodeCertificate):
            certificate = self.certificate.to_dict()
        else:
            certificate = self.certificate

        certificate_refused: None | str | Unset
        if isinstance(self.certificate_refused, Unset):
            certificate_refused = UNSET
        else:
            certificate_refused = self.certificate_refused

        client_crl: None | str | Unset
        if isinstance(self.client_crl, Unset):
            client_crl = UNSET
        else:
            client_crl = self.client_crl


        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({
            "node_id": node_id,
            "registered": registered,
            "generation": generation,
            "applied_generation": applied_generation,
            "every_ms": every_ms,
        })
        if certificate is not UNSET:
            field_dict["certificate"] = certificate
        if certificate_refused is not UNSET:
            field_dict["certificate_refused"] = certificate_refused
        if client_crl is not UNSET:
            field_dict["client_crl"] = client_crl

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.node_certificate import NodeCertificate # noqa: PLC0415
        d = dict(src_dict)
        node_id = d.pop("node_id")

        registered = d.pop("registered")

        generation = d.pop("generation")

        applied_generation = d.pop("applied_generation")

        every_ms = d.pop("every_ms")

        def _parse_certificate(data: object) -> NodeCertificate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                certificate_type_1 = NodeCertificate.from_dict(data)



                return certificate_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(NodeCertificate | None | Unset, data)

        certificate = _parse_certificate(d.pop("certificate", UNSET))


        def _parse_certificate_refused(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        certificate_refused = _parse_certificate_refused(d.pop("certificate_refused", UNSET))


        def _parse_client_crl(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        client_crl = _parse_client_crl(d.pop("client_crl", UNSET))


        heartbeat_answer = cls(
            node_id=node_id,
            registered=registered,
            generation=generation,
            applied_generation=applied_generation,
            every_ms=every_ms,
            certificate=certificate,
            certificate_refused=certificate_refused,
            client_crl=client_crl,
        )


        heartbeat_answer.additional_properties = d
        return heartbeat_answer

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
