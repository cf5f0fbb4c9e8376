from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar, BinaryIO, TextIO, TYPE_CHECKING, Generator

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

from ..models.cipher_name import CipherName






T = TypeVar("T", bound="CipherDoc")



@_attrs_define
class CipherDoc:
    """ A payload cipher and its key (hex: 32 bytes for ChaCha20-Poly1305 and
    AES-256-GCM, 16 for AES-128-GCM, 8 for DES).

        Attributes:
            cipher (CipherName): A payload cipher.
            key (str):
     """

    cipher: CipherName
    key: str





    def to_dict(self) -> dict[str, Any]:
        cipher = self.cipher.value

        key = self.key


        field_dict: dict[str, Any] = {}

        field_dict.update({
            "cipher": cipher,
            "key": key,
        })

        return field_dict



    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        cipher = CipherName(d.pop("cipher"))




        key = d.pop("key")

        cipher_doc = cls(
            cipher=cipher,
            key=key,
        )

        return cipher_doc

