"""The web pages' blueprint object, shared by the view modules."""

from __future__ import annotations

from flask import Blueprint

web = Blueprint("web", __name__)
