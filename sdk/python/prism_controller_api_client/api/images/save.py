from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ...client import AuthenticatedClient, Client
from ...types import Response, UNSET
from ... import errors

from ...models.error import Error
from ...models.image_view import ImageView
from ...models.save_image_request import SaveImageRequest
from typing import cast



def _get_kwargs(
    project: str,
    *,
    body: SaveImageRequest,

) -> dict[str, Any]:
    headers: dict[str, Any] = {}


    

    

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v1/projects/{project}/images".format(project=quote(str(project), safe=""),),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs



def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | ImageView | None:
    if response.status_code == 200:
        response_200 = ImageView.from_dict(response.json())



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

    if response.status_code == 502:
        response_502 = Error.from_dict(response.json())



        return response_502

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())



        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | ImageView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveImageRequest,

) -> Response[Error | ImageView]:
    """ Saves a processing booking's file system, as it runs, as an OCI
    image: one layer over the image it runs, without its host keys or
    authorized keys; its blobs that the project's bucket lacks are
    uploaded by the node (`prism-images/sha256/…`, within the bucket's
    quota). Answers once the image is stored.

    Args:
        project (str):
        body (SaveImageRequest): `POST /v1/projects/{project}/images`: save a processing booking's
            file system as image `name`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ImageView]
     """


    kwargs = _get_kwargs(
        project=project,
body=body,

    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)

def sync(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveImageRequest,

) -> Error | ImageView | None:
    """ Saves a processing booking's file system, as it runs, as an OCI
    image: one layer over the image it runs, without its host keys or
    authorized keys; its blobs that the project's bucket lacks are
    uploaded by the node (`prism-images/sha256/…`, within the bucket's
    quota). Answers once the image is stored.

    Args:
        project (str):
        body (SaveImageRequest): `POST /v1/projects/{project}/images`: save a processing booking's
            file system as image `name`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ImageView
     """


    return sync_detailed(
        project=project,
client=client,
body=body,

    ).parsed

async def asyncio_detailed(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveImageRequest,

) -> Response[Error | ImageView]:
    """ Saves a processing booking's file system, as it runs, as an OCI
    image: one layer over the image it runs, without its host keys or
    authorized keys; its blobs that the project's bucket lacks are
    uploaded by the node (`prism-images/sha256/…`, within the bucket's
    quota). Answers once the image is stored.

    Args:
        project (str):
        body (SaveImageRequest): `POST /v1/projects/{project}/images`: save a processing booking's
            file system as image `name`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | ImageView]
     """


    kwargs = _get_kwargs(
        project=project,
body=body,

    )

    response = await client.get_async_httpx_client().request(
        **kwargs
    )

    return _build_response(client=client, response=response)

async def asyncio(
    project: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveImageRequest,

) -> Error | ImageView | None:
    """ Saves a processing booking's file system, as it runs, as an OCI
    image: one layer over the image it runs, without its host keys or
    authorized keys; its blobs that the project's bucket lacks are
    uploaded by the node (`prism-images/sha256/…`, within the bucket's
    quota). Answers once the image is stored.

    Args:
        project (str):
        body (SaveImageRequest): `POST /v1/projects/{project}/images`: save a processing booking's
            file system as image `name`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | ImageView
     """


    return (await asyncio_detailed(
        project=project,
client=client,
body=body,

    )).parsed
