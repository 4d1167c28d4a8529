"""The request and answer schemas (marshmallow), also the source of the OpenAPI components."""
