from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.booking_change import BookingChange
from ...models.booking_changed import BookingChanged
from ...models.error import Error
from typing import cast



def _get_kwargs(
    project: str,
    id: str,
    *,
    body: BookingChange,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v1/projects/{project}/bookings/{id}".format(project=quote(str(project), safe=""),id=quote(str(id), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> BookingChanged | Error | None:
    if response.status_code == 200:
        response_200 = BookingChanged.from_dict(response.json())



        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())



        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())



        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())



        return response_403

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())



        return response_404

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

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())



        return response_503

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())



        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[BookingChanged | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BookingChange,

) -> Response[BookingChanged | Error]:
    """ Changes a live network booking: its tables (`spec.route`,
    `spec.rule`, `spec.default_action`: a table update on its node, no
    reconfiguration), its forwarding mode (`spec.forwarding`: another
    module in its hardware slot, loaded as `spec.reconfigure` says, the
    device model's time in the answer), its tier and its bandwidth (the
    quota and its nodes' capacity checked first). With `dry_run` the
    change is only checked and answered as if made. The change is checked whole before anything moves (a
    refusal names its field and changes nothing), is one generation of the
    booking (`generation` given and not current: 409), and is kept in its
    history; the answer comes once its nodes have it (or says
    `converging`).

     Its creator, a project owner, or an administrator (an override,
    audited as `admin-override`).

    Args:
        project (str):
        id (str):
        body (BookingChange): What to change in a network booking. Fields left out stay as they
            are;
            the change is checked whole before anything moves, and a refusal
            names its field and changes nothing.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookingChanged | Error]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BookingChange,

) -> BookingChanged | Error | None:
    """ Changes a live network booking: its tables (`spec.route`,
    `spec.rule`, `spec.default_action`: a table update on its node, no
    reconfiguration), its forwarding mode (`spec.forwarding`: another
    module in its hardware slot, loaded as `spec.reconfigure` says, the
    device model's time in the answer), its tier and its bandwidth (the
    quota and its nodes' capacity checked first). With `dry_run` the
    change is only checked and answered as if made. The change is checked whole before anything moves (a
    refusal names its field and changes nothing), is one generation of the
    booking (`generation` given and not current: 409), and is kept in its
    history; the answer comes once its nodes have it (or says
    `converging`).

     Its creator, a project owner, or an administrator (an override,
    audited as `admin-override`).

    Args:
        project (str):
        id (str):
        body (BookingChange): What to change in a network booking. Fields left out stay as they
            are;
            the change is checked whole before anything moves, and a refusal
            names its field and changes nothing.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookingChanged | Error
     """


    return sync_detailed(
        project=project,
id=id,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BookingChange,

) -> Response[BookingChanged | Error]:
    """ Changes a live network booking: its tables (`spec.route`,
    `spec.rule`, `spec.default_action`: a table update on its node, no
    reconfiguration), its forwarding mode (`spec.forwarding`: another
    module in its hardware slot, loaded as `spec.reconfigure` says, the
    device model's time in the answer), its tier and its bandwidth (the
    quota and its nodes' capacity checked first). With `dry_run` the
    change is only checked and answered as if made. The change is checked whole before anything moves (a
    refusal names its field and changes nothing), is one generation of the
    booking (`generation` given and not current: 409), and is kept in its
    history; the answer comes once its nodes have it (or says
    `converging`).

     Its creator, a project owner, or an administrator (an override,
    audited as `admin-override`).

    Args:
        project (str):
        id (str):
        body (BookingChange): What to change in a network booking. Fields left out stay as they
            are;
            the change is checked whole before anything moves, and a refusal
            names its field and changes nothing.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[BookingChanged | Error]
     """


    kwargs = _get_kwargs(
        project=project,
id=id,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: BookingChange,

) -> BookingChanged | Error | None:
    """ Changes a live network booking: its tables (`spec.route`,
    `spec.rule`, `spec.default_action`: a table update on its node, no
    reconfiguration), its forwarding mode (`spec.forwarding`: another
    module in its hardware slot, loaded as `spec.reconfigure` says, the
    device model's time in the answer), its tier and its bandwidth (the
    quota and its nodes' capacity checked first). With `dry_run` the
    change is only checked and answered as if made. The change is checked whole before anything moves (a
    refusal names its field and changes nothing), is one generation of the
    booking (`generation` given and not current: 409), and is kept in its
    history; the answer comes once its nodes have it (or says
    `converging`).

     Its creator, a project owner, or an administrator (an override,
    audited as `admin-override`).

    Args:
        project (str):
        id (str):
        body (BookingChange): What to change in a network booking. Fields left out stay as they
            are;
            the change is checked whole before anything moves, and a refusal
            names its field and changes nothing.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        BookingChanged | Error
     """


    return (await asyncio_detailed(
        project=project,
id=id,
client=client,
body=body,

    )).parsed
