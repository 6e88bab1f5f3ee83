"""Admin blueprint: a few JSON views mounted under ``/admin``."""

from flask import Blueprint, abort, jsonify, request

from app.api.deps import get_order_service, get_user_service
from app.services.users import UserNotFoundError
from app.utils.text import slugify

admin_bp = Blueprint("admin", __name__, url_prefix="/admin")


@admin_bp.route("/users")
def admin_users():
    """All users with a slug usable in admin URLs."""
    service = get_user_service()
    users = service.list_users(limit=int(request.args.get("limit", 50)))
    return jsonify([{"id": u.id, "slug": slugify(u.name)} for u in users])


@admin_bp.route("/users/<int:user_id>/deactivate", methods=["POST"])
def admin_deactivate(user_id: int):
    """Deactivate a user from the admin screen."""
    service = get_user_service()
    try:
        user = service.deactivate(user_id)
    except UserNotFoundError:
        abort(404)
    return jsonify({"id": user.id, "active": user.active})


@admin_bp.route("/orders/open", methods=["GET", "HEAD"])
def admin_open_orders():
    """Pending orders across all users."""
    service = get_order_service()
    return jsonify([o.id for o in service.orders.open_orders()])
