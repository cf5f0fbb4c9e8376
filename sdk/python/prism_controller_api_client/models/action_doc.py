from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..types import UNSET, Unset
from typing import cast

if TYPE_CHECKING:
  from ..models.cipher_doc import CipherDoc
  from ..models.endpoints import Endpoints





T = TypeVar("T", bound="ActionDoc")



@_attrs_define
class ActionDoc:
    """ An action result: where the packet goes and what is done to it.

        Attributes:
            port (int | None | str | Unset):
            decrement_ttl (bool | Unset):
            set_src_mac (None | str | Unset):
            set_dst_mac (None | str | Unset):
            software (int | None | Unset): Hand the packet to the software tier on this channel.
            drop (bool | Unset):
            ipip_encap (Endpoints | None | Unset):
            ipip_decap (bool | Unset):
            ipip_rewrite (Endpoints | None | Unset):
            vlan_push (int | None | Unset):
            vlan_pop (bool | Unset):
            vlan_set (int | None | Unset):
            encrypt (CipherDoc | None | Unset):
            decrypt (CipherDoc | None | Unset):
            compress (bool | Unset):
            decompress (bool | Unset):
     """

    port: int | None | str | Unset = UNSET
    decrement_ttl: bool | Unset = UNSET
    set_src_mac: None | str | Unset = UNSET
    set_dst_mac: None | str | Unset = UNSET
    software: int | None | Unset = UNSET
    drop: bool | Unset = UNSET
    ipip_encap: Endpoints | None | Unset = UNSET
    ipip_decap: bool | Unset = UNSET
    ipip_rewrite: Endpoints | None | Unset = UNSET
    vlan_push: int | None | Unset = UNSET
    vlan_pop: bool | Unset = UNSET
    vlan_set: int | None | Unset = UNSET
    encrypt: CipherDoc | None | Unset = UNSET
    decrypt: CipherDoc | None | Unset = UNSET
    compress: bool | Unset = UNSET
    decompress: bool | Unset = UNSET





    def to_dict(self) -> dict[str, Any]:
        from ..models.cipher_doc import CipherDoc # noqa: PLC0415
        from ..models.endpoints import Endpoints # noqa: PLC0415
        port: int | None | str | Unset
        if isinstance(self.port, Unset):
            port = UNSET
        else:
            port = self.port

        decrement_ttl = self.decrement_ttl

        set_src_mac: None | str | Unset
        if isinstance(self.set_src_mac, Unset):
            set_src_mac = UNSET
        else:
            set_src_mac = self.set_src_mac

        set_dst_mac: None | str | Unset
        if isinstance(self.set_dst_mac, Unset):
            set_dst_mac = UNSET
        else:
            set_dst_mac = self.set_dst_mac

        software: int | None | Unset
        if isinstance(self.software, Unset):
            software = UNSET
        else:
            software = self.software

        drop = self.drop

        ipip_encap: dict[str, Any] | None | Unset
        if isinstance(self.ipip_encap, Unset):
            ipip_encap = UNSET
        elif isinstance(self.ipip_encap, Endpoints):
            ipip_encap = self.ipip_encap.to_dict()
        else:
            ipip_encap = self.ipip_encap

        ipip_decap = self.ipip_decap

        ipip_rewrite: dict[str, Any] | None | Unset
        if isinstance(self.ipip_rewrite, Unset):
            ipip_rewrite = UNSET
        elif isinstance(self.ipip_rewrite, Endpoints):
            ipip_rewrite = self.ipip_rewrite.to_dict()
        else:
            ipip_rewrite = self.ipip_rewrite

        vlan_push: int | None | Unset
        if isinstance(self.vlan_push, Unset):
            vlan_push = UNSET
        else:
            vlan_push = self.vlan_push

        vlan_pop = self.vlan_pop

        vlan_set: int | None | Unset
        if isinstance(self.vlan_set, Unset):
            vlan_set = UNSET
        else:
            vlan_set = self.vlan_set

        encrypt: dict[str, Any] | None | Unset
        if isinstance(self.encrypt, Unset):
            encrypt = UNSET
        elif isinstance(self.encrypt, CipherDoc):
            encrypt = self.encrypt.to_dict()
        else:
            encrypt = self.encrypt

        decrypt: dict[str, Any] | None | Unset
        if isinstance(self.decrypt, Unset):
            decrypt = UNSET
        elif isinstance(self.decrypt, CipherDoc):
            decrypt = self.decrypt.to_dict()
        else:
            decrypt = self.decrypt

        compress = self.compress

        decompress = self.decompress


        field_dict: dict[str, Any] = {}

        field_dict.update({
        })
        if port is not UNSET:
            field_dict["port"] = port
        if decrement_ttl is not UNSET:
            field_dict["decrement_ttl"] = decrement_ttl
        if set_src_mac is not UNSET:
            field_dict["set_src_mac"] = set_src_mac
        if set_dst_mac is not UNSET:
            field_dict["set_dst_mac"] = set_dst_mac
        if software is not UNSET:
            field_dict["software"] = software
        if drop is not UNSET:
            field_dict["drop"] = drop
        if ipip_encap is not UNSET:
            field_dict["ipip_encap"] = ipip_encap
        if ipip_decap is not UNSET:
            field_dict["ipip_decap"] = ipip_decap
        if ipip_rewrite is not UNSET:
            field_dict["ipip_rewrite"] = ipip_rewrite
        if vlan_push is not UNSET:
            field_dict["vlan_push"] = vlan_push
        if vlan_pop is not UNSET:
            field_dict["vlan_pop"] = vlan_pop
        if vlan_set is not UNSET:
            field_dict["vlan_set"] = vlan_set
        if encrypt is not UNSET:
            field_dict["encrypt"] = encrypt
        if decrypt is not UNSET:
            field_dict["decrypt"] = decrypt
        if compress is not UNSET:
            field_dict["compress"] = compress
        if decompress is not UNSET:
            field_dict["decompress"] = decompress

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.cipher_doc import CipherDoc # noqa: PLC0415
        from ..models.endpoints import Endpoints # noqa: PLC0415
        d = dict(src_dict)
        def _parse_port(data: object) -> int | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | str | Unset, data)

        port = _parse_port(d.pop("port", UNSET))


        decrement_ttl = d.pop("decrement_ttl", UNSET)

        def _parse_set_src_mac(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        set_src_mac = _parse_set_src_mac(d.pop("set_src_mac", UNSET))


        def _parse_set_dst_mac(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        set_dst_mac = _parse_set_dst_mac(d.pop("set_dst_mac", UNSET))


        def _parse_software(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        software = _parse_software(d.pop("software", UNSET))


        drop = d.pop("drop", UNSET)

        def _parse_ipip_encap(data: object) -> Endpoints | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ipip_encap_type_1 = Endpoints.from_dict(data)



                return ipip_encap_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Endpoints | None | Unset, data)

        ipip_encap = _parse_ipip_encap(d.pop("ipip_encap", UNSET))


        ipip_decap = d.pop("ipip_decap", UNSET)

        def _parse_ipip_rewrite(data: object) -> Endpoints | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                ipip_rewrite_type_1 = Endpoints.from_dict(data)



                return ipip_rewrite_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Endpoints | None | Unset, data)

        ipip_rewrite = _parse_ipip_rewrite(d.pop("ipip_rewrite", UNSET))


        def _parse_vlan_push(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vlan_push = _parse_vlan_push(d.pop("vlan_push", UNSET))


        vlan_pop = d.pop("vlan_pop", UNSET)

        def _parse_vlan_set(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        vlan_set = _parse_vlan_set(d.pop("vlan_set", UNSET))


        def _parse_encrypt(data: object) -> CipherDoc | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                encrypt_type_1 = CipherDoc.from_dict(data)



                return encrypt_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CipherDoc | None | Unset, data)

        encrypt = _parse_encrypt(d.pop("encrypt", UNSET))


        def _parse_decrypt(data: object) -> CipherDoc | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                decrypt_type_1 = CipherDoc.from_dict(data)



                return decrypt_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(CipherDoc | None | Unset, data)

        decrypt = _parse_decrypt(d.pop("decrypt", UNSET))


        compress = d.pop("compress", UNSET)

        decompress = d.pop("decompress", UNSET)

        action_doc = cls(
            port=port,
            decrement_ttl=decrement_ttl,
            set_src_mac=set_src_mac,
            set_dst_mac=set_dst_mac,
            software=software,
            drop=drop,
            ipip_encap=ipip_encap,
            ipip_decap=ipip_decap,
            ipip_rewrite=ipip_rewrite,
            vlan_push=vlan_push,
            vlan_pop=vlan_pop,
            vlan_set=vlan_set,
            encrypt=encrypt,
            decrypt=decrypt,
            compress=compress,
            decompress=decompress,
        )

        return action_doc

