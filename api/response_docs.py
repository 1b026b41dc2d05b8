"""Response bodies in /openapi.json, so a client (and the schemathesis fuzz) knows what each status answers.

Each route names its own success bodies (`resp=Documented(..., HTTP_200=Model)`, api/spec.py: documented, not
checked at run time). `attach(spec)` fills what is left: 402 the payment error, every other error but 422 the
error shape, the bodies that are not JSON (the event stream, chart files), and the module route's 200, one
schema per module (api/module_schemas.py)."""
from __future__ import annotations

from pydantic.json_schema import models_json_schema

from api import module_schemas
from api.response_docs_shapes import ErrorResponse, ModuleResult, PaymentRequiredResponse

V1 = "/api/v1"
MODULE_ROUTE = f"{V1}/intelligence/{{module_name}}"
REF = "#/components/schemas/{model}"

# bodies that are not JSON: the media type and its schema
RAW_BODIES = {
    (f"{V1}/events/stream", "get", "200"): ("text/event-stream", {"type": "string"}),
    ("/charts/newsletter/{filename}", "get", "200"): ("image/png", {"type": "string", "format": "binary"}),
    ("/metrics", "get", "200"): ("text/plain", {"type": "string"}),  # Prometheus' text format 0.0.4
}
MODELS = (ErrorResponse, PaymentRequiredResponse, ModuleResult)


def attach(spec: dict, module_names: list[str]) -> None:
    """Give every status of every operation without a body its schema, and the models to components/schemas."""
    _, top = models_json_schema([(m, "serialization") for m in MODELS], ref_template=REF)
    spec.setdefault("components", {}).setdefault("schemas", {}).update(top.get("$defs", {}))
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                raw = RAW_BODIES.get((path, method, status))
                if raw is not None:
                    response["content"] = {raw[0]: {"schema": raw[1]}}
                elif status[0] in "45" and status != "422" and "content" not in response:
                    model = PaymentRequiredResponse if status == "402" else ErrorResponse
                    response["content"] = {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}
    if module_names and MODULE_ROUTE in spec.get("paths", {}):
        module_schemas.attach(spec, module_names, MODULE_ROUTE)
