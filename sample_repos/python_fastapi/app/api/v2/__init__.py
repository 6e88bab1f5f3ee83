"""Version 2 of the API: routers mounted under ``/api/v2`` by :mod:`app.api.v2.router`."""
