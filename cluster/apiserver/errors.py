"""API errors as Kubernetes Status objects (k8s.io/apimachinery/pkg/api/errors)."""

from __future__ import annotations

from dataclasses import dataclass

from cluster.apiserver.kinds import KindInfo


@dataclass(slots=True)
class Cause:
    """One field error: metav1.StatusCause."""

    type: str  # FieldValueInvalid, FieldValueRequired, FieldValueNotSupported, ...
    field: str
    message: str  # the whole "Invalid value: ...: reason" text, as field.Error.ErrorBody()

    def text(self) -> str:
        return f"{self.field}: {self.message}" if self.field else self.message

    def to_json(self) -> dict:
        return {"reason": self.type, "message": self.message, "field": self.field}


class ApiError(Exception):
    """An error the API answers with a Status object and an HTTP code."""

    def __init__(self, code: int, reason: str, message: str, details: dict | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message
        self.details = details

    def status(self) -> dict:
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
        }
        if self.details is not None:  # kube-apiserver prints `"details": {}` when it has none
            status["details"] = self.details
        status["code"] = self.code  # after details, in metav1.Status's field order
        return status


class DecodeError(ApiError):
    """A body the decoder refuses (400). `field` is where (spec.containers[0].ports[0].containerPort):
    kube-apiserver's Status does not carry it, the page's apply shows it with its line."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(400, "BadRequest", message)
        self.field = field


class Gone(ApiError):
    """The requested revision was compacted away (410 Expired)."""

    def __init__(self, requested: int, oldest: int) -> None:
        super().__init__(410, "Expired", f"too old resource version: {requested} ({oldest})")


def _details(info: KindInfo, name: str) -> dict:
    details = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.plural
    return details


def not_found(info: KindInfo, name: str) -> ApiError:
    return ApiError(404, "NotFound", f'{info.qualified} "{name}" not found', _details(info, name))


def already_exists(info: KindInfo, name: str) -> ApiError:
    return ApiError(409, "AlreadyExists", f'{info.qualified} "{name}" already exists', _details(info, name))


def conflict(info: KindInfo, name: str, why: str = "") -> ApiError:
    why = why or "the object has been modified; please apply your changes to the latest version and try again"
    message = f'Operation cannot be fulfilled on {info.qualified} "{name}": {why}'
    return ApiError(409, "Conflict", message, _details(info, name))


def invalid(info: KindInfo, name: str, causes: list[Cause]) -> ApiError:
    """422 Invalid: `Pod "x" is invalid: field: Invalid value: ...` (several causes in [...])."""
    texts = [cause.text() for cause in causes]
    body = texts[0] if len(texts) == 1 else "[" + ", ".join(texts) + "]"
    kind = f"{info.kind}.{info.group}" if info.group else info.kind
    details: dict = {"name": name}
    if info.group:
        details["group"] = info.group
    details["kind"] = info.kind
    details["causes"] = [cause.to_json() for cause in causes]
    return ApiError(422, "Invalid", f'{kind} "{name}" is invalid: {body}', details)


def forbidden(plural: str, name: str, why: str, group: str = "") -> ApiError:
    """403 `<plural>[.<group>] "<name>" is forbidden: <why>`, as an admission plugin or a registry
    strategy refuses an object (details in metav1.StatusDetails' order: name, group, kind)."""
    qualified = f"{plural}.{group}" if group else plural
    details = {"name": name, **({"group": group} if group else {}), "kind": plural}
    return ApiError(403, "Forbidden", f'{qualified} "{name}" is forbidden: {why}', details)


def bad_request(message: str) -> ApiError:
    return ApiError(400, "BadRequest", message)


def too_large(limit: int) -> ApiError:
    return ApiError(413, "RequestEntityTooLarge", f"Request entity too large: limit is {limit}")


def unsupported_media_type(content_type: str) -> ApiError:
    accepted = "application/json, application/yaml, application/merge-patch+json"
    message = f"the body of the request was in an unknown format - accepted media types include: {accepted}"
    return ApiError(415, "UnsupportedMediaType", f"{message} (got {content_type!r})")


def method_not_allowed(verb: str) -> ApiError:
    """NewGenericServerResponse(405): its details are there, empty (`"details": {}`)."""
    return ApiError(
        405,
        "MethodNotAllowed",
        f"the server does not allow this method on the requested resource ({verb})",
        {},
    )


# kube-apiserver's answer to a path it does not serve, in its own field order.
NO_SUCH_RESOURCE_STATUS = {
    "kind": "Status",
    "apiVersion": "v1",
    "metadata": {},
    "status": "Failure",
    "message": "the server could not find the requested resource",
    "reason": "NotFound",
    "details": {},
    "code": 404,
}


def no_such_resource() -> ApiError:
    return ApiError(404, "NotFound", "the server could not find the requested resource", {})
