#!/usr/bin/env python3
"""Validates recorded API responses against schemas of an OpenAPI 3.0 or 3.1 document (X's is 3.0, Mastodon's 3.1).

Usage: validate-openapi.py SPEC.json SAMPLES.json
SAMPLES.json is a list of {"name": ..., "schema": "#/components/schemas/X", "body": {...}}.
Besides the JSON-schema check, every object whose schema lists `properties` must not carry a field the
document does not define (a misspelt field would otherwise pass, as the schemas allow extra fields).
Prints one line per sample and exits non-zero if any fails.
"""
import json
import sys

from openapi_schema_validator import OAS30Validator, OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4, DRAFT202012


def resolve(spec, node):
    while isinstance(node, dict) and "$ref" in node:
        path = node["$ref"].lstrip("#/").split("/")
        node = spec
        for part in path:
            node = node[part]
    return node


def collect_properties(spec, schema, value, depth=0):
    """The properties `schema` defines for `value`, through allOf/oneOf/anyOf and the discriminator's mapping."""
    schema = resolve(spec, schema)
    properties = dict(schema.get("properties", {}))
    if depth > 8:
        return properties
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in schema.get(key, []):
            properties.update(collect_properties(spec, sub, value, depth + 1))
    discriminator = schema.get("discriminator")
    if discriminator and isinstance(value, dict):
        mapped = discriminator.get("mapping", {}).get(value.get(discriminator["propertyName"]))
        if mapped:
            properties.update(collect_properties(spec, {"$ref": mapped}, value, depth + 1))
    return properties


def undocumented_fields(spec, schema, value, where):
    """Fields of `value` that `schema` does not define."""
    schema = resolve(spec, schema)
    problems = []
    if isinstance(value, dict):
        properties = collect_properties(spec, schema, value)
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
    is31 = str(spec.get("openapi", "3.0")).startswith("3.1")
    draft, validator_class = (DRAFT202012, OAS31Validator) if is31 else (DRAFT4, OAS30Validator)
    registry = Registry().with_resource("urn:spec", Resource.from_contents(spec, default_specification=draft))
    failures = 0
    for sample in samples:
        validator = validator_class({"$ref": "urn:spec" + sample["schema"]}, registry=registry)
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
