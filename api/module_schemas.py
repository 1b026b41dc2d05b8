"""Each module's result schema: the envelope every format shares (`ModuleResult`) with its `module` named and its
`data` typed from the field dictionary (intel/fields). /openapi.json answers the module route with one of them,
chosen by `module`; each MCP module tool carries its own, self-contained, as `outputSchema`."""
from __future__ import annotations

import copy
import functools

from api.response_docs_shapes import ModuleResult
from intel.fields import data_schema, dictionary

REF = "#/components/schemas/{model}"


def typed(envelope: dict, module: str) -> dict:
    """The envelope's schema with `module` fixed to this module and `data` its dictionary's schema."""
    schema = copy.deepcopy(envelope)
    schema["title"] = f"{module} result"
    schema["properties"]["module"] = {"type": "string", "const": module}
    schema["properties"]["data"] = data_schema(dictionary(module))
    return schema


@functools.cache
def output_schema(module: str) -> dict:
    return typed(ModuleResult.model_json_schema(mode="serialization"), module)


def attach(spec: dict, names: list[str], path: str) -> None:
    """A component per module, and the module route's 200 the one its `module` names."""
    schemas = spec["components"]["schemas"]
    refs = {}
    for name in names:
        schemas[f"ModuleResult_{name}"] = typed(schemas["ModuleResult"], name)
        refs[name] = REF.format(model=f"ModuleResult_{name}")
    response = spec["paths"][path]["get"]["responses"]["200"]
    response["content"] = {"application/json": {"schema": {
        "oneOf": [{"$ref": ref} for ref in refs.values()],
        "discriminator": {"propertyName": "module", "mapping": refs}}}}
