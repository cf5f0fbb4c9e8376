from enum import StrEnum

class CipherName(StrEnum):
    AES_128_GCM = "aes-128-gcm"
    AES_256_GCM = "aes-256-gcm"
    CHACHA20POLY1305 = "chacha20poly1305"
    DES = "des"

    def __str__(self) -> str:
        return str(self.value)
