"""The storage service as a researcher's S3 client sees it: boto3 (SigV4,
path-style, its default checksums), urllib for the URLs the controller
signed, uploads in parts. Run by storage.rs with the endpoint, the keys and the URLs in the
environment; prints `boto3: ok` when every check passed."""

import base64
import hashlib
import io
import os
import sys
import time
import urllib.error
import urllib.request

import boto3
from boto3.exceptions import S3UploadFailedError
from boto3.s3.transfer import TransferConfig
from botocore.config import Config
from botocore.exceptions import ClientError

E = os.environ


def client(who):
    return boto3.client(
        "s3",
        endpoint_url=E["ENDPOINT"],
        aws_access_key_id=E[who + "_AK"],
        aws_secret_access_key=E[who + "_SK"],
        region_name="us-east-1",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 1}),
    )


def refused(code, f):
    try:
        f()
    except ClientError as e:
        got = e.response["Error"]["Code"]
        assert got == code, f"{got} (wanted {code}): {e}"
        return
    raise AssertionError(f"not refused (wanted {code})")


def http(method, url, data=None):
    req = urllib.request.Request(url, data=data, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def main():
    if sys.argv[1:] == ["revoked"]:
        refused("InvalidAccessKeyId", lambda: client("ALICE").list_objects_v2(Bucket="exp"))
        print("boto3: revoked key refused")
        return
    alice, bob = client("ALICE"), client("BOB")
    body = b"a base image, as a researcher saved it\n" * 20
    alice.put_object(Bucket="exp", Key="images/base.txt", Body=body)
    assert alice.get_object(Bucket="exp", Key="images/base.txt")["Body"].read() == body
    keys = [o["Key"] for o in alice.list_objects_v2(Bucket="exp", Prefix="images/")["Contents"]]
    assert keys == ["images/base.txt"], keys
    buckets = [b["Name"] for b in alice.list_buckets()["Buckets"]]
    assert buckets == ["exp"], buckets

    # Shared with `other`: bob reads, and cannot write; alice sees nothing of bob's.
    assert bob.get_object(Bucket="exp", Key="images/base.txt")["Body"].read() == body
    refused("AccessDenied", lambda: bob.put_object(Bucket="exp", Key="x", Body=b"x"))
    bob.put_object(Bucket="other", Key="mine.txt", Body=b"bob's")
    refused("NoSuchBucket", lambda: alice.get_object(Bucket="other", Key="mine.txt"))

    # A URL boto3 signs, and the ones the controller signed.
    url = alice.generate_presigned_url(
        "get_object", Params={"Bucket": "exp", "Key": "images/base.txt"}, ExpiresIn=60
    )
    assert http("GET", url) == (200, body)
    status, _ = http("PUT", E["PUT_URL"], b"uploaded with the controller's URL")
    assert status == 200, status
    got = alice.get_object(Bucket="exp", Key="uploads/from-url.txt")["Body"].read()
    assert got == b"uploaded with the controller's URL", got
    assert http("GET", E["GET_URL"])[0] == 200
    status, answer = http("GET", E["GET_URL"].replace("from-url.txt", "other.txt"))
    assert status == 403 and b"SignatureDoesNotMatch" in answer, (status, answer)
    time.sleep(max(0.0, float(E["SHORT_URL_EXPIRES"]) - time.time()) + 1.2)
    status, answer = http("GET", E["SHORT_URL"])
    assert status == 403, (status, answer)

    # A digest that does not match, an upload past the quota: nothing stored.
    wrong = base64.b64encode(hashlib.sha256(b"something else").digest()).decode()
    refused(
        "BadDigest",
        lambda: alice.put_object(Bucket="exp", Key="bad.txt", Body=b"abc", ChecksumSHA256=wrong),
    )
    refused("NoSuchKey", lambda: alice.get_object(Bucket="exp", Key="bad.txt"))
    big = b"\0" * int(E["QUOTA"])
    refused("QuotaExceeded", lambda: alice.put_object(Bucket="exp", Key="big.bin", Body=big))
    refused("NoSuchKey", lambda: alice.get_object(Bucket="exp", Key="big.bin"))
    alice.delete_object(Bucket="exp", Key="uploads/from-url.txt")
    multipart(alice, bob)
    print("boto3: ok")


MIB = 1024 * 1024


def multipart(alice, bob):
    """Uploads in parts: boto3's own (upload_fileobj past its threshold,
    parts sent at once), then S3's calls one by one with their refusals;
    an upload past the quota refused at a part and aborted by boto3.
    Leaves nothing: every byte given back."""
    data = os.urandom(11 * MIB)
    cfg = TransferConfig(multipart_threshold=5 * MIB, multipart_chunksize=5 * MIB)
    alice.upload_fileobj(io.BytesIO(data), "exp", "images/disk.img", Config=cfg)
    assert alice.get_object(Bucket="exp", Key="images/disk.img")["Body"].read() == data
    alice.delete_object(Bucket="exp", Key="images/disk.img")

    key = "parts.bin"
    up = alice.create_multipart_upload(Bucket="exp", Key=key)["UploadId"]
    args = dict(Bucket="exp", Key=key, UploadId=up)
    first = data[: 5 * MIB]
    e1 = alice.upload_part(**args, PartNumber=1, Body=first)["ETag"]
    e2 = alice.upload_part(**args, PartNumber=2, Body=b"tail")["ETag"]

    def complete(parts):
        return lambda: alice.complete_multipart_upload(
            **args, MultipartUpload={"Parts": [{"PartNumber": n, "ETag": e} for n, e in parts]}
        )

    refused("InvalidPartOrder", complete([(2, e2), (1, e1)]))
    refused("InvalidPart", complete([(1, e2), (2, e2)]))
    refused("InvalidPart", complete([(1, e1), (3, e2)]))
    refused("NoSuchUpload", lambda: alice.upload_part(Bucket="exp", Key="other.bin", UploadId=up, PartNumber=1, Body=b"x"))
    refused("NoSuchUpload", lambda: bob.upload_part(Bucket="other", Key=key, UploadId=up, PartNumber=1, Body=b"x"))
    refused("AccessDenied", lambda: bob.create_multipart_upload(Bucket="exp", Key="x"))
    complete([(1, e1), (2, e2)])()
    assert alice.get_object(Bucket="exp", Key=key)["Body"].read() == first + b"tail"

    small = alice.create_multipart_upload(Bucket="exp", Key="small.bin")["UploadId"]
    sargs = dict(Bucket="exp", Key="small.bin", UploadId=small)
    s1 = alice.upload_part(**sargs, PartNumber=1, Body=b"too small")["ETag"]
    s2 = alice.upload_part(**sargs, PartNumber=2, Body=b"last")["ETag"]
    refused(
        "EntityTooSmall",
        lambda: alice.complete_multipart_upload(
            **sargs, MultipartUpload={"Parts": [{"PartNumber": 1, "ETag": s1}, {"PartNumber": 2, "ETag": s2}]}
        ),
    )
    alice.abort_multipart_upload(**sargs)
    refused("NoSuchUpload", lambda: alice.upload_part(**sargs, PartNumber=3, Body=b"x"))
    refused("NoSuchKey", lambda: alice.get_object(Bucket="exp", Key="small.bin"))

    try:
        over = io.BytesIO(b"\1" * (int(E["QUOTA"]) + MIB))
        alice.upload_fileobj(over, "exp", "over.img", Config=cfg)
        raise AssertionError("an upload in parts past the quota was taken")
    except (ClientError, S3UploadFailedError) as e:
        assert "QuotaExceeded" in str(e), e
    refused("NoSuchKey", lambda: alice.get_object(Bucket="exp", Key="over.img"))
    alice.delete_object(Bucket="exp", Key=key)


main()
