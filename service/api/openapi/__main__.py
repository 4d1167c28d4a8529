"""``python -m service.api.openapi`` writes openapi.yaml, the description of the application's routes."""
from ...app import create_app
from ...config import Config
from .spec import write

write(create_app(Config(testing=True)))
