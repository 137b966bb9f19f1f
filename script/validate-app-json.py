#!/usr/bin/env python3
"""Validates app.json against Heroku's app.json JSON Schema (draft 7) with the jsonschema package from PyPI.

Usage: validate-app-json.py SCHEMA APP_JSON. Prints each problem, then "app.json is valid" or "N problems".
"""
import json
import sys

import jsonschema


def main() -> int:
    schema_path, app_path = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    with open(app_path, encoding="utf-8") as file:
        app = json.load(file)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    problems = sorted(validator.iter_errors(app), key=lambda error: list(error.absolute_path))
    for problem in problems:
        place = "/".join(str(part) for part in problem.absolute_path) or "(top level)"
        print(f"{place}: {problem.message}")
    print("app.json is valid" if not problems else f"{len(problems)} problems")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
