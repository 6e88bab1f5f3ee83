"""Order-management sample application.

The package is split the usual way: HTTP layer (:mod:`app.api`, :mod:`app.web`),
services, repositories, models and small utilities.
"""

__version__ = "0.3.0"
