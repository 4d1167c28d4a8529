"""The OpenAPI document: ``python -m service.api.openapi`` writes openapi.yaml."""
