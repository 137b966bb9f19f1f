#!/usr/bin/env python3
"""Validates recorded API responses against schemas of an OpenAPI 3.0 document.

Usage: validate-openapi.py SPEC.json SAMPLES.json
SAMPLES.json is a list of {"name": ..., "schema": "#/components/schemas/X", "body": {...}}.
Besides the JSON-schema check, every object whose schema lists `properties` must not carry a field the
document does not define (a misspelt field would otherwise pass, as the schemas allow extra fields).
Prints one line per sample and exits non-zero if any fails.
"""
import json
import sys

from openapi_schema_validator import OAS30Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        path = node["$ref"].lstrip("#/").split("/")
        node = spec
        for part in path:
            node = node[part]
    return node


def undocumented_fields(spec, schema, value, where):
    """Fields of `value` that `schema` (with allOf/oneOf/anyOf merged) does not define."""
    schema = resolve(spec, schema)
    problems = []
    if isinstance(value, dict):
        properties = {}
        subschemas = [schema] + [resolve(spec, s) for key in ("allOf", "oneOf", "anyOf") for s in schema.get(key, [])]
        for sub in subschemas:
            properties.update(resolve(spec, sub).get("properties", {}))
        if properties:
            for key, item in value.items():
                if key not in properties:
                    problems.append(f"{where}.{key} is not in the schema")
                else:
                    problems += undocumented_fields(spec, properties[key], item, f"{where}.{key}")
    elif isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            problems += undocumented_fields(spec, schema["items"], item, f"{where}[{index}]")
    return problems


def main():
    spec = json.load(open(sys.argv[1]))
    samples = json.load(open(sys.argv[2]))
    registry = Registry().with_resource("urn:spec", Resource.from_contents(spec, default_specification=DRAFT4))
    failures = 0
    for sample in samples:
        validator = OAS30Validator({"$ref": "urn:spec" + sample["schema"]}, registry=registry)
        errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}" for e in validator.iter_errors(sample["body"])]
        errors += undocumented_fields(spec, {"$ref": sample["schema"]}, sample["body"], "$")
        if errors:
            failures += 1
            print(f"FAIL {sample['name']} ({sample['schema']}):")
            for error in errors[:10]:
                print(f"     {error}")
        else:
            print(f"ok   {sample['name']} ({sample['schema']})")
    print(f"{len(samples) - failures} passed, {failures} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
