"""The helper process for costly requests: ``python -m service.api.wsgi.helper <fd>`` (see offload.py)."""
