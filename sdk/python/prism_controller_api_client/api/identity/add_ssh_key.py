from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.ssh_key_request import SshKeyRequest
from ...models.ssh_key_view import SshKeyView
from typing import cast



def _get_kwargs(
    *,
    body: SshKeyRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/ssh-keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | SshKeyView | None:
    if response.status_code == 201:
        response_201 = SshKeyView.from_dict(response.json())



        return response_201

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())



        return response_403

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())



        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())



        return response_413

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())



        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())



        return response_500

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())



        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | SshKeyView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SshKeyRequest,

) -> Response[Error | SshKeyView]:
    """ Adds an ssh public key (`TYPE BASE64 [COMMENT]`, as in a `.pub` file);
    processing nodes booked from now on (or started again) accept it.

    Args:
        body (SshKeyRequest): A public key the user's processing nodes accept for root's ssh
            (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | SshKeyView]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    *,
    client: AuthenticatedClient | Client,
    body: SshKeyRequest,

) -> Error | SshKeyView | None:
    """ Adds an ssh public key (`TYPE BASE64 [COMMENT]`, as in a `.pub` file);
    processing nodes booked from now on (or started again) accept it.

    Args:
        body (SshKeyRequest): A public key the user's processing nodes accept for root's ssh
            (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | SshKeyView
     """


    return sync_detailed(
        client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: SshKeyRequest,

) -> Response[Error | SshKeyView]:
    """ Adds an ssh public key (`TYPE BASE64 [COMMENT]`, as in a `.pub` file);
    processing nodes booked from now on (or started again) accept it.

    Args:
        body (SshKeyRequest): A public key the user's processing nodes accept for root's ssh
            (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | SshKeyView]
     """


    kwargs = _get_kwargs(
        body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: SshKeyRequest,

) -> Error | SshKeyView | None:
    """ Adds an ssh public key (`TYPE BASE64 [COMMENT]`, as in a `.pub` file);
    processing nodes booked from now on (or started again) accept it.

    Args:
        body (SshKeyRequest): A public key the user's processing nodes accept for root's ssh
            (`authorized_keys`), as OpenSSH writes it: `TYPE BASE64 [COMMENT]`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | SshKeyView
     """


    return (await asyncio_detailed(
        client=client,
body=body,

    )).parsed
