"""The Go field types of Services, Endpoints, EndpointSlices, ConfigMaps and Secrets, for the
decoder's type check (`typecheck.py`): `"ports": "x"` is a 400 `cannot unmarshal`, as upstream,
before defaulting or validation see it. These kinds' OpenAPI stays open (unknown fields kept)."""

from __future__ import annotations

_HEAD = {"apiVersion": "string", "kind": "string", "metadata": "ObjectMeta"}

TYPES: dict[str, dict[str, str]] = {
    "ConfigMap": {**_HEAD, "data": "{string}", "binaryData": "{string}", "immutable": "boolean"},
    "Secret": {
        **_HEAD,
        "data": "{string}",
        "stringData": "{string}",
        "type": "string",
        "immutable": "boolean",
    },
    "Service": {**_HEAD, "spec": "ServiceSpec", "status": "object"},
    "ServiceSpec": {
        "ports": "[ServicePort]",
        "selector": "{string}",
        "clusterIP": "string",
        "clusterIPs": "[string]",
        "type": "string",
        "externalIPs": "[string]",
        "sessionAffinity": "string",
        "externalName": "string",
        "externalTrafficPolicy": "string",
        "internalTrafficPolicy": "string",
        "ipFamilies": "[string]",
        "ipFamilyPolicy": "string",
        "publishNotReadyAddresses": "boolean",
    },
    "ServicePort": {
        "name": "string",
        "protocol": "string",
        "appProtocol": "string",
        "port": "integer",
        "targetPort": "IntOrString",
        "nodePort": "integer",
    },
    "Endpoints": {**_HEAD, "subsets": "[EndpointSubset]"},
    "EndpointSubset": {
        "addresses": "[EndpointAddress]",
        "notReadyAddresses": "[EndpointAddress]",
        "ports": "[EndpointPort]",
    },
    "EndpointAddress": {"ip": "string", "hostname": "string", "nodeName": "string", "targetRef": "object"},
    "EndpointPort": {"name": "string", "port": "integer", "protocol": "string", "appProtocol": "string"},
    "EndpointSlice": {
        **_HEAD,
        "addressType": "string",
        "endpoints": "[Endpoint]",
        "ports": "[EndpointPort]",
    },
    "Endpoint": {
        "addresses": "[string]",
        "conditions": "object",
        "hostname": "string",
        "targetRef": "object",
        "nodeName": "string",
        "zone": "string",
    },
}
