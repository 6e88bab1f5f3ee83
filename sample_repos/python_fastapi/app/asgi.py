"""Second ASGI entry point serving the version 2 API and the admin blueprint."""

from fastapi import FastAPI
from flask import Flask

from app.api.v2.router import api_v2
from app.web import admin

api = FastAPI()
api.include_router(api_v2, prefix="/api")

# The Flask site mounts the admin blueprint under /backoffice instead of its own /admin.
site = Flask(__name__)
site.register_blueprint(admin.admin_bp, url_prefix="/backoffice")
