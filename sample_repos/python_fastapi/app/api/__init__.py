"""FastAPI routers. Each module exposes ``router``; :mod:`app.main` mounts them."""
